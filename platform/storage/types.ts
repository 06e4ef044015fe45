import type { Readable } from 'node:stream';

/**
 * Where staged pages and finished files live: local disk under DATA_DIR on one machine, an
 * S3-compatible bucket when several workers must see the same objects. Keys are '/'-separated.
 */
export interface Storage {
  readonly kind: 'local' | 's3' | 'memory';
  /** Moves (local) or uploads (s3) a finished local file to key; the key appears whole or not at all. */
  putFile(key: string, localPath: string): Promise<void>;
  /**
   * The object `body`, or the parts of one written back to back (a Parquet export's piece: its row
   * groups and its pages' values, not joined first: a 4 MiB join per piece doubled the worker's
   * full collections, ADR 0056).
   */
  putBuffer(key: string, body: Buffer | readonly Buffer[]): Promise<void>;
  getBuffer(key: string): Promise<Buffer>;
  /** The object, or the bytes `start` to `end` (inclusive) of it: a download's Range. */
  getStream(key: string, range?: ByteRange): Promise<Readable>;
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

/** Bytes `start` to `end` of an object, both inclusive (as HTTP's Range counts them). */
export interface ByteRange {
  start: number;
  end: number;
}

export function assertKey(key: string): void {
  if (!key || key.startsWith('/') || key.split('/').some((p) => p === '' || p === '.' || p === '..')) {
    throw new Error(`invalid storage key: ${key}`);
  }
}
