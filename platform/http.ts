// Small HTTP rules shared by every outgoing client (the source, callbacks).

/**
 * Retry-After (RFC 9110 §10.2.3) in milliseconds: delay-seconds or an HTTP-date, never negative,
 * at most maxMs; undefined when absent or unreadable. A decimal number of seconds is accepted too,
 * as many servers send one.
 */
export function parseRetryAfter(header: string | string[] | undefined, maxMs = Number.POSITIVE_INFINITY): number | undefined {
  const v = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.min(Number(v) * 1000, maxMs);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - Date.now()), maxMs);
}
