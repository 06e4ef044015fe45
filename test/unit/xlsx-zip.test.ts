// The xlsx writer's zip container (domain/formats/xlsx/zip.ts) read back by Python's zipfile, which
// shares no code with it and checks every entry's CRC-32 and sizes: small parts and streamed parts
// in any order, an empty streamed part, a part of many chunks, UTF-8 names, the timestamp.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ZipStream } from '../../domain/formats/xlsx/zip.js';

const dir = mkdtempSync(join(tmpdir(), 'dc-zip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const READ = `
import hashlib, json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
bad = z.testzip()
print(json.dumps({"bad": bad, "entries": [[i.filename, i.file_size, i.date_time[:3], hashlib.sha256(z.read(i)).hexdigest()] for i in z.infolist()]}))
`;

const sha = async (b: Buffer) => (await import('node:crypto')).createHash('sha256').update(b).digest('hex');

it('writes entries Python reads back whole, CRC-32 and sizes checked', async () => {
  const path = join(dir, 'a.zip');
  const zip = new ZipStream(path, new Date(2026, 10, 27, 12, 30, 10));
  // Varied bytes that do not compress away, over many zlib chunks.
  const big = Buffer.from(Array.from({ length: 60_000 }, (_, i) => `<row r="${i}">${(i * 7919) % 100_003}é数</row>`).join(''));
  const small = Buffer.from('<?xml version="1.0"?><styleSheet/>');
  zip.addBuffer('xl/styles.xml', small);
  const s = zip.openEntry('xl/worksheets/sheet1.xml', 5, 1 << 16);
  for (let at = 0; at < big.length; at += 100_000) await s.write(big.subarray(at, at + 100_000), zip.done);
  await s.end(zip.done);
  const empty = zip.openEntry('xl/worksheets/表 2.xml', 5, 1 << 16);
  await empty.end(zip.done);
  zip.addBuffer('[Content_Types].xml', Buffer.from('<Types/>'));
  const { bytes, sha256 } = await zip.close();

  const read = JSON.parse(execFileSync('python3', ['-c', READ, path], { encoding: 'utf8' })) as { bad: string | null; entries: [string, number, number[], string][] };
  expect(read.bad).toBeNull();
  expect(read.entries).toEqual([
    ['xl/styles.xml', small.length, [2026, 11, 27], await sha(small)],
    ['xl/worksheets/sheet1.xml', big.length, [2026, 11, 27], await sha(big)],
    ['xl/worksheets/表 2.xml', 0, [2026, 11, 27], await sha(Buffer.alloc(0))],
    ['[Content_Types].xml', 8, [2026, 11, 27], await sha(Buffer.from('<Types/>'))],
  ]);
  const file = (await import('node:fs')).readFileSync(path);
  expect(bytes).toBe(file.length);
  expect(sha256).toBe(await sha(file));
});
