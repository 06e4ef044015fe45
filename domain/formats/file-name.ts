// A download's name: what the caller asked for, made safe for a file system, a shell and a
// Content-Disposition header, and kept short by characters and by bytes. It names the download
// only; stored objects and scratch files are named by the task's id and a part number, so no name
// can make a path too long.

/** Characters a stored name keeps at most (after the unsafe ones are replaced). */
export const FILE_NAME_MAX_CHARS = 120;
/** UTF-8 bytes it keeps at most: a name of 120 CJK characters would be 360. */
export const FILE_NAME_MAX_BYTES = 240;

const UNSAFE = /[\u0000-\u001f\u007f/\\:*?"<>|]+/g;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The longest prefix of `text` within `maxChars` code points and `maxBytes` UTF-8 bytes that ends
 * between two user-perceived characters: an emoji, a flag or a letter with its accents stays whole.
 */
export function clipText(text: string, maxChars: number, maxBytes: number): string {
  let chars = 0;
  let bytes = 0;
  let end = 0;
  for (const { segment, index } of graphemes.segment(text)) {
    chars += [...segment].length;
    bytes += Buffer.byteLength(segment);
    if (chars > maxChars || bytes > maxBytes) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
}

/**
 * What is trimmed from both ends: dots and JavaScript's whitespace (`\s`) less the control
 * characters (already `_` by then), spelt out so that the API document's pattern means the same in
 * any regex engine.
 */
const TRIMMED = '. \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** A name is usable when it holds a character that is not trimmed (a pattern, unanchored as in JSON Schema). */
export const FILE_NAME_USABLE = new RegExp(`[^${TRIMMED}]`);
const LEADING = new RegExp(`^[${TRIMMED}]+`);
const TRAILING = new RegExp(`[${TRIMMED}]+$`);

/** The name as stored: NFC, unsafe characters as `_`, no leading or trailing dots or spaces, clipped. */
export function sanitizeFileName(name: string): string {
  const safe = name.normalize('NFC').replace(UNSAFE, '_');
  return clipText(safe.replace(LEADING, ''), FILE_NAME_MAX_CHARS, FILE_NAME_MAX_BYTES).replace(TRAILING, '');
}
