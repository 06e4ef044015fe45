// XML text for SpreadsheetML parts.

// Characters XML 1.0 cannot carry at all (C0 controls but tab, LF, CR; U+FFFE/U+FFFF): dropped.
const INVALID = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const SPECIAL = /[&<>"\r\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;

export function esc(s: string): string {
  // Most cells need nothing: test once, replace only when needed.
  if (!SPECIAL.test(s)) return s;
  // A CR as itself would reach every reader as LF (XML's end-of-line handling): written as a reference, it stays a CR.
  return s.replace(INVALID, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/\r/g, '&#13;');
}

const KEEP = /^\s|\s$|\n/;
// Most cell text has nothing to escape or drop, no edge space and no line break: one test says so.
const PLAIN = /[&<>"\r\n\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|^\s|\s$/;

/** An inline string's <t>, keeping edge spaces and line breaks that Excel would otherwise trim. */
export function textEl(s: string): string {
  if (!PLAIN.test(s)) return `<t>${s}</t>`;
  return KEEP.test(s) ? `<t xml:space="preserve">${esc(s)}</t>` : `<t>${esc(s)}</t>`;
}

/** 0 → A, 25 → Z, 26 → AA. */
export function colName(i: number): string {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** A1-style range, rows and columns 0-based. */
export const rangeRef = (r1: number, c1: number, r2: number, c2: number) => `${colName(c1)}${r1 + 1}:${colName(c2)}${r2 + 1}`;

export const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
export const NS_MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
export const NS_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
