// Whether an error means "the database cannot be reached right now" (restarting, failing over, the
// network to it down) rather than "this query is wrong": the API answers such errors 503
// database_unavailable and an activity fails with a retryable failure (docs/adr/0036-database-restarts.md).
import { DrizzleQueryError } from 'drizzle-orm';

/** The driver's own connection errors (postgres.js): they come from nothing else. */
const DRIVER_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'CONNECTION_ENDED', 'CONNECT_TIMEOUT']);

/** The socket's, which count only under a database error (an S3 client's ECONNREFUSED is not the database's). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server going away or not yet back: class 08 (connection exception), 57P01
 * admin_shutdown (a fast restart), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up).
 */
const isUnavailableState = (code: string) => code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03';

export function isDatabaseUnavailable(err: unknown): boolean {
  let fromDatabase = false;
  // drizzle wraps the driver's error as `cause` (DrizzleQueryError); a few levels are plenty.
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { name, code } = e as { name?: unknown; code?: unknown };
    if (e instanceof DrizzleQueryError) fromDatabase = true;
    if (typeof code !== 'string') continue;
    if (DRIVER_CODES.has(code) || (name === 'PostgresError' && isUnavailableState(code)) || (fromDatabase && SOCKET_CODES.has(code))) return true;
  }
  return false;
}
