// The list cursor every paged list uses: the last item's (created_at, id), opaque to callers.
import { type AnyColumn, type SQL, sql } from 'drizzle-orm';
import { DomainError } from './errors.js';

export const encodeCursor = (last: { createdAt: Date; id: string }): string => Buffer.from(JSON.stringify([last.createdAt.toISOString(), last.id])).toString('base64url');

// What an id this API returned looks like (prefix_random); anything else never reaches SQL, where a
// NUL byte or a year Postgres cannot store would fail the query instead of the request.
const ID = /^[a-z]{2,8}_[A-Za-z0-9_-]{1,64}$/;
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(9999, 11, 31);

export function decodeCursor(s: string): [Date, string] {
  try {
    const [at, id] = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as [unknown, unknown];
    const d = new Date(typeof at === 'string' ? at : Number.NaN);
    const t = d.getTime();
    if (!(t >= EARLIEST && t <= LATEST) || typeof id !== 'string' || !ID.test(id)) throw new Error();
    return [d, id];
  } catch {
    throw DomainError.invalid('cursor', 'invalid cursor', 'cursor is not one this API returned');
  }
}

/**
 * ORDER BY of a newest-first page. NULLS LAST, as the list indexes are built (drizzle's `.desc()` on
 * an index column): a plain DESC means NULLS FIRST, which no such index can give, so Postgres would
 * read and sort every matching row for each page (docs/adr/0029-list-queries-by-index.md).
 */
export const newestFirst = (at: AnyColumn, id: AnyColumn): SQL[] => [sql`${at} desc nulls last`, sql`${id} desc nulls last`];

/**
 * The rows after the cursor's in newest-first order, as one row comparison: Postgres makes it the
 * start of an index range, where the same test spelt `at < x OR (at = x AND id < y)` is a filter.
 */
export function olderThan(at: AnyColumn, id: AnyColumn, cursor: string): SQL {
  const [d, last] = decodeCursor(cursor);
  return sql`(${at}, ${id}) < (${d.toISOString()}::timestamptz, ${last})`;
}
