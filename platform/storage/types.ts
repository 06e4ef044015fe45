import type { Readable } from 'node:stream';

/**
 * Where staged pages and finished files live: local disk under DATA_DIR on one machine, an
 * S3-compatible bucket when several workers must see the same objects. Keys are '/'-separated.
 */
export interface Storage {
  readonly kind: 'local' | 's3' | 'memory';
  /** Moves (local) or uploads (s3) a finished local file to key; the key appears whole or not at all. */
  putFile(key: string, localPath: string): Promise<void>;
  putBuffer(key: string, body: Buffer): Promise<void>;
  getBuffer(key: string): Promise<Buffer>;
  getStream(key: string): Promise<Readable>;
  /** Size in bytes, or null when the key does not exist. */
  size(key: string): Promise<number | null>;
  /** Keys under prefix, sorted. */
  list(prefix: string): Promise<string[]>;
  copy(from: string, to: string): Promise<void>;
  /** Renames (local) or copies then deletes (s3). */
  move(from: string, to: string): Promise<void>;
  deletePrefix(prefix: string): Promise<void>;
  ping(): Promise<void>;
}

export function assertKey(key: string): void {
  if (!key || key.startsWith('/') || key.split('/').some((p) => p === '' || p === '.' || p === '..')) {
    throw new Error(`invalid storage key: ${key}`);
  }
}
