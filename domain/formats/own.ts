// Reading a row by a key the data chose: own properties only. Every object JSON.parse makes
// inherits constructor, toString, valueOf, __proto__ … from Object.prototype, and a row without
// such a key must read as absent (empty in CSV and xlsx, null in JSON Lines and Parquet), never
// as a function or the prototype itself (docs/formats.md, "Absent keys").

/** Whether `row[key]` could reach Object.prototype when the row lacks `key`. */
export const inherited = (key: string): boolean => key in Object.prototype;

/** The row's own value under `key`; undefined when the row (an object or array) has none. */
export function ownValue(row: unknown, key: string): unknown {
  return row !== null && typeof row === 'object' && Object.hasOwn(row, key) ? (row as Record<string, unknown>)[key] : undefined;
}

/**
 * How one column's value is read from parsed rows: as an own property where the key names a member
 * of Object.prototype, else by plain indexing (faster, and an absent key is undefined either way).
 */
export function ownReader(key: string): (row: unknown) => unknown {
  return inherited(key) ? (row) => ownValue(row, key) : (row) => (row as Record<string, unknown>)[key];
}
