// Text no field may hold (docs/api.md#conventions: a 422 naming the field): a NUL
// character, an unpaired UTF-16 surrogate, or bytes that are not UTF-8. Postgres cannot store the
// first (it answered 500), and the others would be stored as something else.
import type { FieldError } from '../domain/errors.js';
import { LONE_SURROGATE } from '../model/storable.js';

/** One test for the common case: text with neither a NUL nor any surrogate is fine. */
const SUSPECT = /[\u0000\ud800-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
/** At most this many fields are named in one answer. */
export const MAX_DETAILS = 20;

export const NUL_MESSAGE = 'contains a NUL character (U+0000)';
export const SURROGATE_MESSAGE = 'contains an unpaired UTF-16 surrogate (not valid Unicode text)';
export const UTF8_MESSAGE = 'is not valid UTF-8';

/** Why this text may not be stored, or null when it may. */
export function textProblem(s: string): string | null {
  if (!SUSPECT.test(s)) return null;
  if (s.includes('\u0000')) return NUL_MESSAGE;
  if (LONE_SURROGATE.test(s)) return SURROGATE_MESSAGE;
  return null;
}

/** A path segment as it can be shown in an answer: the bad characters themselves written as \uXXXX. */
export function printable(segment: string): string {
  return segment.replace(/\u0000/g, '\\u0000').replace(LONE_SURROGATES, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Every string of a JSON value (object keys too) that fails `problem`, named by its path as zod
 * names fields (`template.columns.0.title`; the value itself is `(body)`), in document order, at
 * most MAX_DETAILS of them. Iterative, so no nesting depth can overflow the stack.
 */
export function findBadText(value: unknown, problem: (s: string) => string | null = textProblem): FieldError[] {
  // Paths as parent links, spelled out only for a bad string: linear in the size of the value.
  type Path = { key: string; up: Path } | null;
  const field = (path: Path) => {
    const keys: string[] = [];
    for (let p = path; p; p = p.up) keys.push(printable(p.key));
    return keys.length === 0 ? '(body)' : keys.reverse().join('.');
  };
  const found: FieldError[] = [];
  const stack: Array<[unknown, Path]> = [[value, null]];
  while (stack.length > 0 && found.length < MAX_DETAILS) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const why = problem(v);
      if (why) found.push({ field: field(path), message: why });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], { key: String(i), up: path }]);
    } else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]!;
        // A bad key is named (with its escapes); its value is not looked into.
        stack.push([problem(k) ? k : child, { key: k, up: path }]);
      }
    }
  }
  return found;
}
