// The design's condition_style language, parsed: a small SQL-like predicate on one cell's value,
// e.g. ">= 0 and < 100", "in ('a', 'b')", "not like '%test%'", "(> 10 or = -1) and != 5". The cell
// is the implicit left operand of every comparison. Hand-written (a recursive-descent parser of a
// dozen tokens): no maintained library parses this exact language, and a generic SQL parser would
// accept far more than the design allows and give worse error messages.

export class ConditionError extends Error {
  constructor(
    readonly source: string,
    readonly position: number,
    reason: string,
  ) {
    super(`${reason} at character ${position + 1} of "${source}"`);
  }
}

export type Literal = number | string | boolean | null;
export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

export type ConditionAst =
  | { kind: 'cmp'; op: CompareOp; value: Literal }
  | { kind: 'in'; values: Literal[] }
  | { kind: 'like'; pattern: string }
  | { kind: 'not'; expr: ConditionAst }
  | { kind: 'and' | 'or'; left: ConditionAst; right: ConditionAst };

export const CONDITION_MAX_LENGTH = 500;
const MAX_NESTING = 20;
const MAX_IN_VALUES = 200;

type Token =
  | { t: 'op'; v: CompareOp; at: number }
  | { t: 'kw'; v: 'and' | 'or' | 'not' | 'in' | 'like' | 'null' | 'true' | 'false'; at: number }
  | { t: 'num'; v: number; at: number }
  | { t: 'str'; v: string; at: number }
  | { t: '(' | ')' | ','; at: number }
  | { t: 'end'; at: number };

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'like', 'null', 'true', 'false']);
const NUMBER = /[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/y;
const WORD = /[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*/y;

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const fail = (reason: string, at = i): never => {
    throw new ConditionError(src, at, reason);
  };
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (two === '>=' || two === '<=' || two === '!=' || two === '<>' || two === '==') {
      out.push({ t: 'op', v: two === '<>' ? '!=' : two === '==' ? '=' : two, at: i });
      i += 2;
    } else if (c === '>' || c === '<' || c === '=') {
      out.push({ t: 'op', v: c, at: i++ });
    } else if (c === '(' || c === ')' || c === ',') {
      out.push({ t: c, at: i++ });
    } else if (c === "'" || c === '"') {
      const start = i;
      let s = '';
      for (i++; ; i++) {
        if (i >= src.length) fail('unterminated string', start);
        if (src[i] === c) {
          if (src[i + 1] === c) {
            s += c; // SQL style: a doubled quote is one quote
            i++;
            continue;
          }
          break;
        }
        s += src[i];
      }
      i++;
      out.push({ t: 'str', v: s, at: start });
    } else if (/[\d.+-]/.test(c)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(src);
      if (!m) fail(`unexpected "${c}"`);
      out.push({ t: 'num', v: Number(m![0]), at: i });
      i += m![0].length;
    } else {
      WORD.lastIndex = i;
      const m = WORD.exec(src);
      if (!m) fail(`unexpected "${c}"`);
      const word = m![0].toLowerCase();
      if (!KEYWORDS.has(word)) fail(`unknown word "${m![0]}" (quote text values, e.g. = '${m![0]}')`);
      out.push({ t: 'kw', v: word as never, at: i });
      i += m![0].length;
    }
  }
  out.push({ t: 'end', at: src.length });
  return out;
}

function describe(tok: Token): string {
  switch (tok.t) {
    case 'end':
      return 'the end';
    case 'num':
      return `number ${tok.v}`;
    case 'str':
      return `'${tok.v}'`;
    case 'op':
    case 'kw':
      return `"${tok.v}"`;
    default:
      return `"${tok.t}"`;
  }
}

/** Parses a condition; throws ConditionError naming the position and what was expected. */
export function parseCondition(src: string): ConditionAst {
  if (src.length > CONDITION_MAX_LENGTH) throw new ConditionError(src.slice(0, 40) + '…', 0, `longer than ${CONDITION_MAX_LENGTH} characters`);
  if (src.trim() === '') throw new ConditionError(src, 0, 'empty condition');
  const toks = tokenize(src);
  let p = 0;
  const peek = () => toks[p]!;
  const fail = (expected: string): never => {
    throw new ConditionError(src, peek().at, `expected ${expected} but found ${describe(peek())}`);
  };
  const isKw = (v: string) => {
    const t = peek();
    return t.t === 'kw' && t.v === v;
  };

  function literal(): Literal {
    const t = peek();
    if (t.t === 'num' || t.t === 'str') {
      p++;
      return t.v;
    }
    if (t.t === 'kw' && (t.v === 'null' || t.v === 'true' || t.v === 'false')) {
      p++;
      return t.v === 'null' ? null : t.v === 'true';
    }
    return fail("a value (a number or a quoted text such as 'abc')");
  }

  function atom(depth: number): ConditionAst {
    const t = peek();
    if (t.t === '(') {
      p++;
      const e = or(depth + 1);
      if (peek().t !== ')') fail('")"');
      p++;
      return e;
    }
    if (t.t === 'op') {
      p++;
      const value = literal();
      if ((value === null || typeof value === 'boolean') && t.v !== '=' && t.v !== '!=') {
        throw new ConditionError(src, t.at, `${String(value)} can only be compared with = or !=`);
      }
      return { kind: 'cmp', op: t.v, value };
    }
    if (isKw('in')) {
      p++;
      if (peek().t !== '(') fail('"(" after in');
      p++;
      const values = [literal()];
      while (peek().t === ',') {
        p++;
        values.push(literal());
        if (values.length > MAX_IN_VALUES) throw new ConditionError(src, peek().at, `more than ${MAX_IN_VALUES} values in one in (…)`);
      }
      if (peek().t !== ')') fail('"," or ")"');
      p++;
      return { kind: 'in', values };
    }
    if (isKw('like')) {
      p++;
      const pat = peek();
      if (pat.t !== 'str') fail("a quoted pattern after like, e.g. like '%abc%'");
      p++;
      return { kind: 'like', pattern: (pat as { v: string }).v };
    }
    return fail('a comparison (>, >=, <, <=, =, !=, in, like) or "("');
  }

  function unary(depth: number): ConditionAst {
    if (depth > MAX_NESTING) throw new ConditionError(src, peek().at, `nested more than ${MAX_NESTING} levels`);
    if (isKw('not')) {
      p++;
      return { kind: 'not', expr: unary(depth + 1) };
    }
    return atom(depth);
  }

  function and(depth: number): ConditionAst {
    let left = unary(depth);
    while (isKw('and')) {
      p++;
      left = { kind: 'and', left, right: unary(depth) };
    }
    return left;
  }

  function or(depth: number): ConditionAst {
    let left = and(depth);
    while (isKw('or')) {
      p++;
      left = { kind: 'or', left, right: and(depth) };
    }
    return left;
  }

  const ast = or(0);
  if (peek().t !== 'end') fail('"and", "or" or the end');
  return ast;
}
