/** The rows of db.execute: postgres.js answers an array, PGlite an object holding one. */
export const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows);
