// One value masked (docs/formats.md#masked-columns). Masks count characters as people see them
// (grapheme clusters: 张 is one, 👨‍👩‍👧 is one, é with a combining accent is one), never bytes or
// UTF-16 units, so a mask never cuts a character in half. Each hidden character becomes one `*`.
import { createHmac } from 'node:crypto';
import type { MaskSpec } from '../../../model/mask.js';

/** Characters kept at each end by the presets that keep some. */
const KEEP: Record<'phone' | 'id_card' | 'bank_card' | 'name', readonly [number, number]> = {
  phone: [3, 4],
  id_card: [6, 4],
  bank_card: [6, 4],
  name: [1, 0],
};

const segmenter = new Intl.Segmenter('und', { granularity: 'grapheme' });
// Printable ASCII: one character per UTF-16 unit, and no pair of them joins into one grapheme.
const PLAIN_ASCII = /^[\x20-\x7e]*$/;
/**
 * What can join code points into one grapheme: marks, joiners, emoji modifiers, flags' regional
 * indicators and tags, Hangul jamo, CR (of CRLF), the prepended marks (Prepend of UAX #29) and the
 * spacing or extending letters that are not marks (Thai and Lao SARA AM, the half-width kana voice
 * marks, Kirat Rai's vowels: found by checking every code point against the segmenter). Text
 * without any (Chinese names, most e-mails and numbers) is one grapheme per code point, and
 * splitting it by code point is many times faster than the segmenter (docs/performance.md#masked-columns).
 */
const JOINS = /[\p{M}\u200c\u200d\p{Emoji_Modifier}\p{Regional_Indicator}\u{E0020}-\u{E007F}\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\r\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u{110BD}\u{110CD}\u0d4e\u0e33\u0eb3\uff9e\uff9f\u{111C2}\u{111C3}\u{113D1}\u{1193F}\u{11941}\u{11A3A}\u{11A84}-\u{11A89}\u{11D46}\u{11F02}\u{16D63}-\u{16D6A}]/u;

/** The value's characters (grapheme clusters). */
export function characters(s: string): string[] {
  if (PLAIN_ASCII.test(s)) return s.split('');
  if (!JOINS.test(s)) return Array.from(s);
  return Array.from(segmenter.segment(s), (g) => g.segment);
}

/**
 * `start` characters kept, then one `*` per hidden character, then `end` kept. A value with no more
 * characters than are kept would show whole: then every character is hidden.
 */
export function keepEnds(s: string, start: number, end: number): string {
  const chars = characters(s);
  if (chars.length <= start + end) return '*'.repeat(chars.length);
  return chars.slice(0, start).join('') + '*'.repeat(chars.length - start - end) + chars.slice(chars.length - end).join('');
}

/**
 * The local part's first character, `***` (always three: the length is hidden too), `@` and the
 * domain as sent. Without an `@` between a local part and a domain it is not an address: all hidden.
 */
export function maskEmail(s: string): string {
  const at = s.lastIndexOf('@');
  if (at <= 0 || at === s.length - 1) return keepEnds(s, 0, 0);
  return `${characters(s.slice(0, at))[0]}***${s.slice(at)}`;
}

/** HMAC-SHA256 of the value's UTF-8 bytes under the project's key, lowercase hex (about 5 µs a value). */
export const hashText = (s: string, key: Buffer): string => createHmac('sha256', key).update(s, 'utf8').digest('hex');

/**
 * The text a non-text value is masked as: numbers and booleans as JSON writes them (`13800000000`,
 * `true`), arrays and objects as their JSON text. Null (and an absent key) is never masked.
 */
export function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** The masked text of one value; `key` is the project's hash key (needed by `hash` only). */
export function maskText(s: string, spec: MaskSpec, key: Buffer | undefined): string {
  // Nothing to hide in empty text, and an empty cell stays empty in every format.
  if (s === '') return s;
  if (typeof spec === 'object') return keepEnds(s, spec.keep_start, spec.keep_end);
  if (spec === 'email') return maskEmail(s);
  if (spec === 'hash') {
    if (!key) throw new Error('a hash mask needs the project key');
    return hashText(s, key);
  }
  const [start, end] = KEEP[spec];
  return keepEnds(s, start, end);
}

/** A value of a masked column: null and absent stay so; anything else becomes masked text. */
export function maskValue(v: unknown, spec: MaskSpec, key: Buffer | undefined): unknown {
  return v === null || v === undefined ? v : maskText(textOf(v), spec, key);
}
