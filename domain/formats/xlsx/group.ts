// One page element of a three-dimensional table, apart from the workbook writer: the masked
// columns (domain/formats/mask/rows.ts) read pages with it, and importing it must not load the
// writer (docs/adr/0055-idle-memory-of-npm-start.md).

/** Rows of one page element: a row, or in a three-dimensional table a group (named or not). */
export function groupOf(el: unknown): { name?: string; rows: unknown[] } {
  if (Array.isArray(el)) return { rows: el };
  if (el && typeof el === 'object') {
    const keys = Object.keys(el);
    const only = keys.length === 1 ? (el as Record<string, unknown>)[keys[0]!] : undefined;
    if (Array.isArray(only)) return { name: keys[0]!, rows: only };
  }
  return { rows: [el] };
}
