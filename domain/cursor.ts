// The list cursor every paged list uses: the last item's (created_at, id), opaque to callers.
import { DomainError } from './errors.js';

export const encodeCursor = (last: { createdAt: Date; id: string }): string => Buffer.from(JSON.stringify([last.createdAt.toISOString(), last.id])).toString('base64url');

export function decodeCursor(s: string): [Date, string] {
  try {
    const [at, id] = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as [string, string];
    const d = new Date(at);
    // Caught just below, as a malformed one is: both become the caller's validation_failed.
    if (Number.isNaN(d.getTime()) || typeof id !== 'string') throw new Error();
    return [d, id];
  } catch {
    throw DomainError.invalid('cursor', 'invalid cursor', 'cursor is not one this API returned');
  }
}
