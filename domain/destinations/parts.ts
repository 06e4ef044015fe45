// A file's bytes as parts of a fixed size, hashed as they pass: a resumed upload skips the parts
// the bucket already holds but still reads them, so the whole file's sha256 is checked every time.
import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';

export interface Part {
  number: number;
  body: Buffer;
}

/** Parts `from`… of the stream (1-based); `hash` sees every byte, the skipped ones too. */
export async function* partsOf(stream: Readable, partBytes: number, from: number, hash: Hash): AsyncGenerator<Part> {
  let pending: Buffer[] = [];
  let size = 0;
  let number = 1;
  const cut = function* (final: boolean): Generator<Part> {
    while (size >= partBytes || (final && size > 0)) {
      const all = Buffer.concat(pending);
      const body = all.subarray(0, Math.min(partBytes, all.length));
      pending = all.length > body.length ? [all.subarray(body.length)] : [];
      size = all.length - body.length;
      if (number >= from) yield { number, body };
      number++;
    }
  };
  for await (const chunk of stream) {
    const buf = chunk as Buffer;
    hash.update(buf);
    pending.push(buf);
    size += buf.length;
    yield* cut(false);
  }
  yield* cut(true);
}

export const newHash = (): Hash => createHash('sha256');
