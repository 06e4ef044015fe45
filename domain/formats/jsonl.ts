// JSON Lines (https://jsonlines.org): one JSON object per line, UTF-8, LF. Each object has the
// export's columns as its keys, in their order (the template's, else the first row's), and each
// value as the source sent it: a number stays a number, a nested object stays an object, a
// missing key is null (every line has the same keys, so a reader infers one schema).

import type { Column } from './columns.js';

/** Rows (objects from the source's JSON) as JSON Lines in the columns' order. */
export function encodeJsonLines(rows: unknown[], columns: Column[]): Buffer {
  if (rows.length === 0) return Buffer.alloc(0);
  const keys = columns.map((c) => c.key);
  // A key such as __proto__ must become an own key, never the object's prototype.
  const bare = keys.some((k) => k in Object.prototype);
  let out = '';
  for (const r of rows) {
    const o = (r ?? {}) as Record<string, unknown>;
    const line: Record<string, unknown> = bare ? Object.create(null) : {};
    if (bare) for (const k of keys) line[k] = Object.hasOwn(o, k) ? (o[k] ?? null) : null;
    else for (const k of keys) line[k] = o[k] ?? null;
    out += JSON.stringify(line) + '\n';
  }
  return Buffer.from(out, 'utf8');
}
