// Worksheet names: Excel allows at most 31 characters, none of []:*?/\, no leading or trailing
// apostrophe, and no two sheets of a workbook whose names differ only in case.

const MAX = 31;

/** A valid sheet name from any text (e.g. a title); `fallback` when nothing usable is left. */
export function sheetName(s: string | undefined, fallback = 'Sheet1'): string {
  const clean = (s ?? '').replace(/[[\]:*?/\\\u0000-\u001f]/g, ' ').replace(/^'+|'+$/g, '').trim().slice(0, MAX).trim();
  return clean || fallback;
}

/** `name` with a suffix, the name shortened so the whole stays within 31 characters. */
const withSuffix = (name: string, suffix: string) => name.slice(0, MAX - suffix.length).trimEnd() + suffix;

/** The name of the k-th piece (k ≥ 2) of a sheet cut across parts: `Orders (2)`, `Orders (3)`, …. */
export const continuedName = (name: string, piece: number): string => withSuffix(name, ` (${piece})`);

/** `wanted`, or the first of `wanted ~2`, `wanted ~3`, … that is not `taken` (compared without case). */
export function uniqueName(wanted: string, taken: (name: string) => boolean): string {
  if (!taken(wanted)) return wanted;
  for (let k = 2; ; k++) {
    const candidate = withSuffix(wanted, ` ~${k}`);
    if (!taken(candidate)) return candidate;
  }
}

/** Names for a workbook's sheets: each given one, else its title, else `Sheet<n>`; made unique. */
export function sheetNames(sheets: Array<{ name?: string | undefined; title?: string | undefined }>): string[] {
  const out: string[] = [];
  const taken = (n: string) => out.some((o) => o.toLowerCase() === n.toLowerCase());
  sheets.forEach((s, i) => out.push(uniqueName(sheetName(s.name ?? s.title, `Sheet${i + 1}`), taken)));
  return out;
}
