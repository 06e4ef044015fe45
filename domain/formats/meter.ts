// A pass-through that counts and hashes the bytes on their way to a file, so a written file's size
// and sha256 are known without reading it back (the .xlsx parts and the zip of all parts use it).
import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';

export class Meter extends Transform {
  bytes = 0;
  private readonly hash = createHash('sha256');
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.bytes += chunk.length;
    this.hash.update(chunk);
    this.push(chunk);
    cb();
  }
  digest(): string {
    return this.hash.digest('hex');
  }
}
