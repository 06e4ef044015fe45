// One byte range of a download (RFC 9110 §14): `bytes=first-last`, `bytes=first-` or `bytes=-suffix`,
// so an interrupted download can resume. Anything else — several ranges, another unit, a range past
// the end, an If-Range that is not the file's ETag — is ignored and the whole file is sent (the RFC
// lets a server ignore Range), so no Range can make a download fail.
import type { ByteRange } from '../platform/storage/types.js';

const ONE_RANGE = /^bytes=\s*(\d{0,15})\s*-\s*(\d{0,15})\s*$/i;

/** The file's entity tag: its SHA-256, which changes whenever its bytes do. */
export const etagOf = (sha256: string): string => `"${sha256}"`;

/** A 206 answer's Content-Range (also what the record of the download keeps). */
export const contentRangeOf = (r: ByteRange, size: number): string => `bytes ${r.start}-${r.end}/${size}`;

/** The range to send of a file of `size` bytes, or null for the whole file. */
export function rangeOf(header: string | undefined, ifRange: string | undefined, etag: string, size: number): ByteRange | null {
  if (header === undefined || size === 0) return null;
  if (ifRange !== undefined && ifRange.trim() !== etag) return null;
  const m = ONE_RANGE.exec(header);
  if (!m) return null;
  const [, first = '', last = ''] = m;
  if (first === '') {
    // The last `suffix` bytes.
    const suffix = Number(last);
    if (last === '' || suffix === 0) return null;
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || end < start) return null;
  return { start, end };
}

/** The request headers a file route takes for a range, as the OpenAPI document describes them. */
export const rangeParameters = [
  { name: 'Range', in: 'header' as const, required: false, description: 'One byte range: bytes=first-last, bytes=first- or bytes=-suffix; anything else is ignored (the whole file, 200).', schema: { type: 'string' as const } },
  { name: 'If-Range', in: 'header' as const, required: false, description: 'The ETag of an earlier answer: the range is sent only if the file is still that one.', schema: { type: 'string' as const } },
];

/** The headers of a file answer that concern ranges. */
export const rangeHeaders = {
  ETag: { description: 'The file\'s SHA-256 in quotes: If-Range takes it.', schema: { type: 'string' as const } },
  'Accept-Ranges': { description: 'bytes', schema: { type: 'string' as const } },
};
