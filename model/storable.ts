// Text the database can always store (docs/adr/0037-a-task-always-ends.md). Postgres and PGlite
// refuse a NUL (U+0000) in text and in jsonb, and jsonb refuses a lone surrogate's escape; a
// refused write of a task's end left the task `running` for good. Every writer of text that came
// from elsewhere (a source's column name in an error, a receiver's or SMTP server's words) passes
// it through here at the edge of the database layer. Pure, so any layer may import it.

/** The longest stored message (error messages, delivery errors, schedule notes), in UTF-16 units. */
export const STORABLE_TEXT_MAX = 2000;

const REPLACEMENT = '\uFFFD';
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// NUL, or a lone surrogate.
const UNSTORABLE = new RegExp(`\\u0000|${LONE_SURROGATE.source}`, 'g');

/**
 * The text with NUL and lone surrogates replaced by U+FFFD and, past `max`, clipped with an
 * ellipsis (never between the two halves of a surrogate pair).
 */
export function storableText(text: string, max = STORABLE_TEXT_MAX): string {
  const clean = text.replace(UNSTORABLE, REPLACEMENT);
  if (clean.length <= max) return clean;
  let end = Math.max(0, max - 1);
  if (end > 0 && /[\uD800-\uDBFF]/.test(clean[end - 1]!)) end -= 1;
  return `${clean.slice(0, end)}…`;
}

/** `storableText` for text that may be absent. */
export function storableOrNull(text: string | null | undefined, max = STORABLE_TEXT_MAX): string | null {
  return text === null || text === undefined ? null : storableText(text, max);
}

/**
 * A value for a jsonb column: every string in it (keys too) made storable, not clipped (a file
 * name or key there is already bounded where it was made). Anything else is kept as it is.
 */
export function storableJson<T>(value: T): T {
  return clean(value) as T;
}

function clean(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(UNSTORABLE, REPLACEMENT);
  if (Array.isArray(value)) return value.map(clean);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(UNSTORABLE, REPLACEMENT), clean(v)]));
}
