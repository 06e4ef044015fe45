// A store that lives in one process's memory and nowhere else: a preview (domain/tasks/preview.ts)
// stages its few pages and renders through the same code as an export, and nothing is kept.
import { readFile, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { assertKey, type ByteRange, type Storage } from './types.js';

export class MemoryStorage implements Storage {
  readonly kind = 'memory' as const;
  private readonly objects = new Map<string, Buffer>();

  private get(key: string): Buffer {
    assertKey(key);
    const body = this.objects.get(key);
    if (!body) throw Object.assign(new Error(`no such key: ${key}`), { code: 'ENOENT' });
    return body;
  }

  /** Takes the file in and removes it from disk, as a move would. */
  async putFile(key: string, localPath: string): Promise<void> {
    await this.putBuffer(key, await readFile(localPath));
    await rm(localPath, { force: true });
  }

  async putBuffer(key: string, body: Buffer | readonly Buffer[]): Promise<void> {
    assertKey(key);
    this.objects.set(key, Buffer.isBuffer(body) ? body : Buffer.concat(body));
  }

  async getBuffer(key: string): Promise<Buffer> {
    return this.get(key);
  }

  async getStream(key: string, range?: ByteRange): Promise<Readable> {
    const body = this.get(key);
    return Readable.from([range ? body.subarray(range.start, range.end + 1) : body]);
  }

  async size(key: string): Promise<number | null> {
    return this.objects.get(key)?.length ?? null;
  }

  async list(prefix: string): Promise<string[]> {
    const dir = prefix.endsWith('/') ? prefix : `${prefix}/`;
    return [...this.objects.keys()].filter((k) => k.startsWith(dir)).sort();
  }

  async copy(from: string, to: string): Promise<void> {
    await this.putBuffer(to, this.get(from));
  }

  async move(from: string, to: string): Promise<void> {
    await this.copy(from, to);
    this.objects.delete(from);
  }

  async deletePrefix(prefix: string): Promise<void> {
    const dir = prefix.endsWith('/') ? prefix : `${prefix}/`;
    for (const k of [...this.objects.keys()]) if (k === prefix || k.startsWith(dir)) this.objects.delete(k);
  }

  async ping(): Promise<void> {}
}
