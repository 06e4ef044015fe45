// Evaluating a parsed condition against a cell value (grammar in condition-parse.ts). Numbers
// compare as numbers (numeric text included), text as text by code point, null means empty.
import { type CompareOp, type ConditionAst, type Literal, parseCondition } from './condition-parse.js';

export { CONDITION_MAX_LENGTH, ConditionError, parseCondition } from './condition-parse.js';
export type Predicate = (value: unknown) => boolean;

const NUMERIC = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A cell value as a number, when it is one or is text that reads as one; otherwise null. */
function asNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && NUMERIC.test(v)) return Number(v);
  return null;
}

const isEmpty = (v: unknown) => v === null || v === undefined || v === '';

function equals(v: unknown, lit: Literal): boolean {
  if (lit === null) return isEmpty(v);
  if (typeof lit === 'boolean') return v === lit;
  if (typeof lit === 'number') return asNumber(v) === lit;
  return !isEmpty(v) || lit === '' ? String(v ?? '') === lit : false;
}

function compare(op: CompareOp, lit: Literal): Predicate {
  if (op === '=') return (v) => equals(v, lit);
  if (op === '!=') return (v) => !equals(v, lit);
  const order = (d: number) => (op === '<' ? d < 0 : op === '<=' ? d <= 0 : op === '>' ? d > 0 : d >= 0);
  if (typeof lit === 'number') {
    return (v) => {
      const n = asNumber(v);
      return n !== null && order(n - lit);
    };
  }
  const s = String(lit);
  // Text ordering is by code point, so 'yyyy-mm-dd' dates compare as dates.
  return (v) => !isEmpty(v) && order(String(v) < s ? -1 : String(v) > s ? 1 : 0);
}

function likeRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) re += pattern[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (c === '%') re += '.*';
    else if (c === '_') re += '.';
    else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  // Case-insensitive, like LIKE under MySQL's default collations.
  return new RegExp(`^${re}$`, 'isu');
}

/** Turns a parsed condition into a plain function, evaluated once per cell. */
export function compileAst(ast: ConditionAst): Predicate {
  switch (ast.kind) {
    case 'cmp':
      return compare(ast.op, ast.value);
    case 'in': {
      const tests = ast.values.map((lit) => (v: unknown) => equals(v, lit));
      return (v) => tests.some((t) => t(v));
    }
    case 'like': {
      const re = likeRegex(ast.pattern);
      return (v) => !isEmpty(v) && re.test(String(v));
    }
    case 'not': {
      const e = compileAst(ast.expr);
      return (v) => !e(v);
    }
    case 'and': {
      const [l, r] = [compileAst(ast.left), compileAst(ast.right)];
      return (v) => l(v) && r(v);
    }
    case 'or': {
      const [l, r] = [compileAst(ast.left), compileAst(ast.right)];
      return (v) => l(v) || r(v);
    }
  }
}

export function compileCondition(src: string): Predicate {
  return compileAst(parseCondition(src));
}
