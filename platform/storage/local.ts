import { createReadStream } from 'node:fs';
import { copyFile, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { randomToken } from '../crypto.js';
import { assertKey, type ByteRange, type Storage } from './types.js';

/** Parts written back to back with one writev a turn (a short write goes on from where it stopped). */
async function writeParts(path: string, parts: readonly Buffer[]): Promise<void> {
  const fh = await open(path, 'w');
  try {
    let rest = parts.filter((p) => p.length > 0);
    while (rest.length > 0) {
      let { bytesWritten: n } = await fh.writev(rest);
      let k = 0;
      while (k < rest.length && n >= rest[k]!.length) n -= rest[k++]!.length;
      rest = rest.slice(k);
      if (n > 0) rest[0] = rest[0]!.subarray(n);
    }
  } finally {
    await fh.close();
  }
}

export class LocalStorage implements Storage {
  readonly kind = 'local' as const;
  // Directories known to exist: a page write then costs a write and a rename, not a mkdir too.
  private readonly dirs = new Set<string>();
  constructor(private readonly root: string) {}

  private async ensureDir(dir: string): Promise<void> {
    if (this.dirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    if (this.dirs.size > 10_000) this.dirs.clear();
    this.dirs.add(dir);
  }

  private path(key: string): string {
    assertKey(key);
    return join(this.root, ...key.split('/'));
  }

  async putFile(key: string, localPath: string): Promise<void> {
    const dest = this.path(key);
    await mkdir(dirname(dest), { recursive: true });
    try {
      await rename(localPath, dest);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      await this.atomicWrite(dest, () => copyFile(localPath, `${dest}.part`));
      await rm(localPath, { force: true });
    }
  }

  async putBuffer(key: string, body: Buffer | readonly Buffer[]): Promise<void> {
    const dest = this.path(key);
    await this.ensureDir(dirname(dest));
    const write = (tmp: string) => (Buffer.isBuffer(body) ? writeFile(tmp, body) : writeParts(tmp, body));
    try {
      await this.atomicWrite(dest, write);
    } catch (err) {
      // The directory was removed meanwhile (deletePrefix of a restarted export): make it again.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.dirs.delete(dirname(dest));
      await this.ensureDir(dirname(dest));
      await this.atomicWrite(dest, write);
    }
  }

  // Write beside the target, then rename: a reader never sees half a file.
  private async atomicWrite(dest: string, write: (tmp: string) => Promise<void>): Promise<void> {
    const tmp = `${dest}.${randomToken(6)}.part`;
    await write(tmp);
    await rename(tmp, dest);
  }

  getBuffer(key: string): Promise<Buffer> {
    return readFile(this.path(key));
  }

  async getStream(key: string, range?: ByteRange): Promise<Readable> {
    const p = this.path(key);
    await stat(p);
    return createReadStream(p, { highWaterMark: 256 * 1024, ...(range ? { start: range.start, end: range.end } : {}) });
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.path(key))).size;
    } catch {
      return null;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const dir = this.path(prefix.replace(/\/$/, ''));
    try {
      const entries = await readdir(dir, { recursive: true, withFileTypes: true });
      return entries
        .filter((e) => e.isFile() && !e.name.endsWith('.part'))
        .map((e) => relative(this.root, join(e.parentPath, e.name)).split(sep).join('/'))
        .sort();
    } catch {
      return [];
    }
  }

  async copy(from: string, to: string): Promise<void> {
    const dest = this.path(to);
    await mkdir(dirname(dest), { recursive: true });
    await this.atomicWrite(dest, (tmp) => copyFile(this.path(from), tmp));
  }

  async move(from: string, to: string): Promise<void> {
    const dest = this.path(to);
    await mkdir(dirname(dest), { recursive: true });
    await rename(this.path(from), dest);
  }

  async deletePrefix(prefix: string): Promise<void> {
    this.dirs.clear();
    await rm(this.path(prefix.replace(/\/$/, '')), { recursive: true, force: true });
  }

  async ping(): Promise<void> {
    await mkdir(this.root, { recursive: true });
  }
}
