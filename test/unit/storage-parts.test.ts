// An object put as its parts (Storage.putBuffer with a list: a Parquet piece's row groups and
// values, ADR 0056) is those parts back to back, on disk and in memory; more parts than one writev
// takes (IOV_MAX, 1,024 on Linux) and empty ones too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalStorage } from '../../platform/storage/local.js';
import { MemoryStorage } from '../../platform/storage/memory.js';

const dir = mkdtempSync(join(tmpdir(), 'dc-storage-parts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each([
  ['local', () => new LocalStorage(dir)],
  ['memory', () => new MemoryStorage()],
])('%s storage', (_, make) => {
  it('writes an object given as parts as the parts back to back', async () => {
    const storage = make();
    const parts = Array.from({ length: 2500 }, (_, i) => Buffer.alloc(i % 7 === 0 ? 0 : 1 + (i % 300), i % 251));
    parts.push(Buffer.alloc(3 << 20, 7));
    await storage.putBuffer('staging/t/pages/00000000-00000001.pqv', parts);
    expect((await storage.getBuffer('staging/t/pages/00000000-00000001.pqv')).equals(Buffer.concat(parts))).toBe(true);
    // A whole Buffer, as before; and none at all is an empty object.
    await storage.putBuffer('staging/t/one', Buffer.from('abc'));
    await storage.putBuffer('staging/t/none', []);
    expect((await storage.getBuffer('staging/t/one')).toString()).toBe('abc');
    expect((await storage.getBuffer('staging/t/none')).length).toBe(0);
  });
});
