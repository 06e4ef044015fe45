// Small HTTP rules: Retry-After for every outgoing client (the source, callbacks); the download
// headers the API and presigned links (platform/links.ts) both give a file.

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

const contentTypes: Record<string, string> = {
  csv: 'text/csv; charset=utf-8',
  // A CSV task with csv_delimiter tab (IANA's type for tab-separated values).
  tsv: 'text/tab-separated-values; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  zip: 'application/zip',
  // JSON Lines has no registered type; this is the one its readers and the jsonlines.org page use.
  jsonl: 'application/jsonl',
  parquet: 'application/vnd.apache.parquet',
  gz: 'application/gzip',
  zst: 'application/zstd',
};

/** The Content-Type of an output file, by its extension. */
export function contentTypeOf(name: string): string {
  return contentTypes[name.split('.').pop() ?? ''] ?? 'application/octet-stream';
}

/** RFC 6266: an ASCII `filename` for old clients (and curl -OJ) beside the exact UTF-8 `filename*`. */
export function contentDisposition(name: string): string {
  const ascii = name.normalize('NFKD').replace(/[^\x20-\x7e]/g, '_').replace(/["\\%;]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
