// The S3 store against a real S3-compatible server (SeaweedFS from global-setup), and a whole
// export whose staged pages and file live in the bucket.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { parquetMetadata, parquetRead } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { taken } from '../../domain/formats/parquet/groups.js';
import { ParquetParts } from '../../domain/formats/parquet/parts.js';
import { loadConfig } from '../../platform/config.js';
import { createStorage } from '../../platform/storage/index.js';
import { S3Storage } from '../../platform/storage/s3.js';
import { s3Env, startTestEnv, type TestEnv } from '../support/env.js';
import { defaultRow, type SourceServer, startSource } from '../support/source-server.js';

describe('S3Storage', () => {
  const env = s3Env();
  const storage = createStorage(loadConfig({ ...env, DATA_DIR: tmpdir() }));

  it('is chosen when S3_ENDPOINT is set, and creates its bucket', async () => {
    expect(storage).toBeInstanceOf(S3Storage);
    expect(storage.kind).toBe('s3');
    await storage.ping();
    await storage.ping();
  });

  it('puts, reads, lists in key order, copies, moves and deletes by prefix', async () => {
    await storage.putBuffer('staging/t1/pages/00000002.csv', Buffer.from('c\r\n'));
    await storage.putBuffer('staging/t1/pages/00000000.csv', Buffer.from('a\r\n'));
    await storage.putBuffer('staging/t1/pages/00000001.csv', Buffer.from('b\r\n'));
    await storage.putBuffer('staging/t10/meta.json', Buffer.from('{}'));
    expect(await storage.list('staging/t1')).toEqual(['staging/t1/pages/00000000.csv', 'staging/t1/pages/00000001.csv', 'staging/t1/pages/00000002.csv']);
    expect((await storage.getBuffer('staging/t1/pages/00000001.csv')).toString()).toBe('b\r\n');
    // overwriting a page replaces it (a resumed fetch rewrites the page it was on)
    await storage.putBuffer('staging/t1/pages/00000001.csv', Buffer.from('B\r\n'));
    expect((await storage.getBuffer('staging/t1/pages/00000001.csv')).toString()).toBe('B\r\n');
    expect(await storage.size('staging/t1/pages/00000000.csv')).toBe(3);
    expect(await storage.size('staging/t1/nope')).toBeNull();

    await storage.copy('staging/t1/pages/00000000.csv', 'files/t1/copy.csv');
    await storage.move('staging/t1/pages/00000002.csv', 'files/t1/moved.csv');
    expect(await storage.list('files/t1/')).toEqual(['files/t1/copy.csv', 'files/t1/moved.csv']);
    expect(await storage.size('staging/t1/pages/00000002.csv')).toBeNull();

    await storage.deletePrefix('staging/t1');
    expect(await storage.list('staging/t1')).toEqual([]);
    // a prefix is a folder: t1 never touches t10
    expect(await storage.list('staging/t10')).toEqual(['staging/t10/meta.json']);
    await expect(storage.getBuffer('staging/t1/pages/00000000.csv')).rejects.toThrow();
    await expect(storage.size('../x')).rejects.toThrow(/invalid storage key/);
  });

  it('uploads a local file whole (multipart above the part size), removes the local copy, and streams it back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dc-s3-file-'));
    const path = join(dir, 'big.bin');
    const body = Buffer.alloc(70 * 1024 * 1024);
    for (let i = 0; i < body.length; i += 4096) body.writeUInt32BE(i, i);
    writeFileSync(path, body);
    await storage.putFile('files/t2/big.bin', path);
    expect(existsSync(path)).toBe(false);
    expect(await storage.size('files/t2/big.bin')).toBe(body.length);
    const hash = createHash('sha256');
    for await (const chunk of await storage.getStream('files/t2/big.bin')) hash.update(chunk as Buffer);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(body).digest('hex'));
    await storage.deletePrefix('files/t2');
  });

  it('deletes more keys than one DeleteObjects call takes', async () => {
    await Promise.all(Array.from({ length: 1050 }, (_, i) => storage.putBuffer(`staging/t3/pages/${String(i).padStart(8, '0')}.csv`, Buffer.from('x'))));
    expect(await storage.list('staging/t3')).toHaveLength(1050);
    await storage.deletePrefix('staging/t3');
    expect(await storage.list('staging/t3')).toEqual([]);
  });
});

describe('an export on the S3 store', () => {
  let env: TestEnv;
  let key: string;
  let src: SourceServer;

  beforeAll(async () => {
    env = await startTestEnv(s3Env());
    ({ api_key: key } = await env.createProject());
    src = await startSource({ total: 2345 });
  });
  afterAll(async () => {
    await src?.close();
    await env?.close();
  });

  it('stages pages and publishes the file in the bucket, nothing on local disk', async () => {
    expect(env.core.storage.kind).toBe('s3');
    const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: src.url, operator_id: 'op', page_size: 100 } });
    const task = await env.waitForTask(res.json.task_id, key);
    expect(task.status).toBe('succeeded');
    expect(await env.core.storage.list(`files/${task.task_id}`)).toEqual([`files/${task.task_id}/1.csv`]); // stored by part number, not by name
    expect(await env.core.storage.list(`staging/${task.task_id}`)).toEqual([]);
    expect(existsSync(join(env.config.DATA_DIR, 'store'))).toBe(false);
    const body = Buffer.from(await (await fetch(task.files[0].url)).arrayBuffer());
    expect(createHash('sha256').update(body).digest('hex')).toBe(task.files[0].sha256);
    const rows = parse(body.toString('utf8').slice(1), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(2345);
    expect(rows.map((r) => Number(r.id))).toEqual(Array.from({ length: 2345 }, (_, i) => defaultRow(i).id));
  });

  it("renders a Parquet export from the bucket, its lanes' row groups read by a range of each piece (ADR 0056)", async () => {
    const exported = async () => {
      const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: src.url, operator_id: 'op', page_size: 100, type: 'parquet' } });
      const task = await env.waitForTask(res.json.task_id, key);
      expect(task.status).toBe('succeeded');
      expect(await env.core.storage.list(`staging/${task.task_id}`)).toEqual([]);
      const body = Buffer.from(await (await fetch(task.files[0].url)).arrayBuffer());
      const file = body.buffer.slice(body.byteOffset, body.byteOffset + body.length) as ArrayBuffer;
      let rows: unknown[][] = [];
      await parquetRead({ file, rowFormat: 'array', onComplete: (r: unknown[][]) => (rows = r) });
      return { groups: parquetMetadata(file).row_groups.length, rows };
    };
    const want = Array.from({ length: 2345 }, (_, i) => {
      const r = defaultRow(i);
      return [BigInt(r.id), r.name, r.amount, r.note];
    });
    const stitch = vi.spyOn(ParquetParts.prototype, 'addEncoded');
    // This source's piece is small (under 8,192 rows): its rows are encoded again by the render …
    const gathered = await exported();
    expect(gathered.rows).toEqual(want);
    expect(stitch).not.toHaveBeenCalled();
    // … or its group, read from the piece's first bytes, is taken as the lane encoded it: the same rows.
    const minRows = taken.minRows;
    taken.minRows = 0;
    try {
      const stitched = await exported();
      expect(stitched.rows).toEqual(want);
      expect(await Promise.all(stitch.mock.results.map((r) => r.value))).toContain(true);
    } finally {
      taken.minRows = minRows;
      stitch.mockRestore();
    }
  });
});
