// CSV dialects, the xlsx autofilter and time_zone, read back by outside readers (docs/formats.md,
// docs/excel.md): fast-check generates adversarial cells, both CSV encoders (the byte transcoder and
// encodeCsvRows) write them in every delimiter and line ending, and Python's csv module reads each
// file with its dialect, compared value by value with the documented rules (format-expected.ts).
// Date-times with a zone around DST changes are written in a time_zone and compared with what
// Python's zoneinfo (the system's tz database, not Node's ICU) says the wall clock shows; workbooks
// are read by openpyxl (the autofilter's range, the cells). test/support/dialect-readers.py.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskRow } from '../../db/schema.js';
import type { Column } from '../../domain/formats/columns.js';
import { type CsvStyle, csvStyle, encodeCsvHead, encodeCsvRows } from '../../domain/formats/csv/encode.js';
import { transcoderFor } from '../../domain/formats/csv/transcode.js';
import { keys } from '../../domain/staging/keys.js';
import { writeMeta } from '../../domain/staging/meta.js';
import { encodeStaged, stagedExt } from '../../domain/staging/pieces.js';
import { buildLayout } from '../../domain/formats/template/layout.js';
import { writeSheets } from '../../domain/formats/xlsx/workbook.js';
import { renderTask } from '../../domain/staging/render.js';
import type { StoredSettings } from '../../model/project-settings.js';
import { MemoryStorage } from '../../platform/storage/memory.js';
import { csvCell, csvText } from '../support/format-expected.js';
import { type CsvRead, readDialects, type ReadJob, type SheetRead } from '../support/dialect-readers.js';

const dir = mkdtempSync(join(tmpdir(), 'dc-dialects-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Job = ReadJob;
const outside = readDialects;

const DIALECTS: CsvStyle[] = (['crlf', 'lf'] as const).flatMap((lineEnding) => ([',', ';', '\t', '|'] as const).map((delimiter) => ({ delimiter, lineEnding })));
const eolOf = (s: CsvStyle) => (s.lineEnding === 'lf' ? '\n' : '\r\n');

// Text made of every dialect's delimiter, quotes, line breaks, formula starts and wide characters.
const PIECES = [',', ';', '\t', '|', '"', '""', '\r', '\n', '\r\n', '=', '+', '-', '@', '＝', 'a', 'Z9', ' ', '客户', '😀', "'", '0012', '-1.5', '2026-03-08T07:00:00Z'];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 7 }).map((p) => p.join(''));
const value = fc.oneof(
  { weight: 6, arbitrary: text },
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.record({ k: text }),
  fc.array(text, { maxLength: 2 }),
);
const table = fc.integer({ min: 1, max: 4 }).chain((width) =>
  fc.record({
    titles: fc.uniqueArray(text.filter((t) => t !== ''), { minLength: width, maxLength: width }),
    rows: fc.array(fc.array(fc.option(value, { nil: undefined }), { minLength: width, maxLength: width }), { maxLength: 25 }),
  }),
);

describe('CSV dialects read back by Python\'s csv module', () => {
  it('every delimiter and line ending, both encoders, holds every value of generated adversarial rows', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(table, async ({ titles, rows }) => {
        run++;
        const columns: Column[] = titles.map((title, i) => ({ key: `k${i}`, title }));
        const objects = rows.map((r) => Object.fromEntries(r.flatMap((v, i) => (v === undefined ? [] : [[`k${i}`, v]]))));
        const page = Buffer.from(JSON.stringify({ total: objects.length, data: objects }));
        const jobs: Job[] = [];
        for (const [d, style] of DIALECTS.entries()) {
          const body = encodeCsvRows(objects, columns, style);
          // The byte path writes the same bytes whenever it takes the page (it gives up on none of these).
          const fast = transcoderFor(columns, style).transcode(page);
          expect(fast?.csv.toString('utf8')).toBe(body.toString('utf8'));
          const path = join(dir, `r${run}-${d}.csv`);
          writeFileSync(path, Buffer.concat([encodeCsvHead(columns, d % 2 === 0, style), fast!.csv]));
          jobs.push({ id: String(d), kind: 'csv', path, delimiter: style.delimiter! });
        }
        const read = await outside(jobs);
        for (const [d, style] of DIALECTS.entries()) {
          const got = read[String(d)] as CsvRead;
          const where = `${JSON.stringify(style)}:`;
          expect(got.bom, where).toBe(d % 2 === 0);
          expect(got.line_endings, where).toEqual([eolOf(style)]);
          expect(got.rows[0], where).toEqual(titles.map(csvText));
          expect(got.rows.slice(1), where).toEqual(objects.map((o) => columns.map((c) => csvCell(o[c.key]))));
        }
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 40) },
    );
  }, 300_000);
});

// Instants where a zone's offset changes (UTC), and zones whose rules the two tz databases agree on since 1970.
const EDGES: Array<[zone: string, utc: string]> = [
  ['America/New_York', '2026-03-08T07:00:00Z'],
  ['America/New_York', '2026-11-01T06:00:00Z'],
  ['Europe/London', '2026-03-29T01:00:00Z'],
  ['Europe/London', '2026-10-25T01:00:00Z'],
  ['Australia/Lord_Howe', '2026-04-04T15:00:00Z'], // +11 → +10:30: a half-hour change
  ['Australia/Lord_Howe', '2026-10-03T15:30:00Z'],
  ['Pacific/Chatham', '2026-04-04T14:00:00Z'], // +13:45 → +12:45
  ['America/Sao_Paulo', '2018-11-04T03:00:00Z'],
  ['America/Sao_Paulo', '2019-02-17T02:00:00Z'], // its last change: no DST since
  ['Asia/Shanghai', '1991-09-14T17:00:00Z'],
  ['Asia/Kolkata', '2026-01-01T00:00:00Z'],
  ['Asia/Kathmandu', '1985-12-31T18:30:00Z'], // +5:30 → +5:45 at half past an hour
];

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
/** An instant written as ISO 8601 text with the given offset (minutes) and separator, and a fraction as written. */
function zonedText(ms: number, offset: number, colon: boolean, sep: string, fraction: string): string {
  const local = new Date(ms + offset * 60_000).toISOString();
  const zone = offset === 0 && colon ? 'Z' : `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}${colon ? ':' : ''}${pad(Math.abs(offset) % 60)}`;
  return `${local.slice(0, 10)}${sep}${local.slice(11, 19)}${fraction ? `.${fraction}` : ''}${zone}`;
}

const zonedValue = (edge: number) =>
  fc
    .record({
      // Seconds around the change, and any instant of 1970-2037.
      at: fc.oneof(fc.integer({ min: -7200, max: 7200 }).map((s) => edge + s * 1000), fc.integer({ min: 0, max: 2_145_916_800 }).map((s) => s * 1000)),
      offset: fc.constantFrom(0, 480, -330, 345, 840, -720, 60),
      colon: fc.boolean(),
      sep: fc.constantFrom('T', ' '),
      fraction: fc.constantFrom('', '5', '123', '000000001'),
    })
    .map(({ at, offset, colon, sep, fraction }) => zonedText(at, offset, colon, sep, fraction));

describe('time_zone in CSV against Python\'s zoneinfo', () => {
  it('a date-time with a zone is the wall-clock time of its instant in the task\'s zone, across DST changes', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...EDGES).chain(([zone, utc]) => fc.tuple(fc.constant(zone), fc.array(zonedValue(Date.parse(utc)), { minLength: 1, maxLength: 40 }))),
        async ([zone, texts]) => {
          run++;
          const columns: Column[] = [{ key: 'at', title: 'at' }, { key: 'plain', title: 'plain' }];
          // A date-time without a zone is a wall-clock time already: it stays as written.
          const objects = texts.map((t) => ({ at: t, plain: t.slice(0, 19) }));
          const style: CsvStyle = { delimiter: ';', lineEnding: 'lf', timeZone: zone };
          const ordinary = encodeCsvRows(objects, columns, style);
          const fast = transcoderFor(columns, style).transcode(Buffer.from(JSON.stringify({ total: objects.length, data: objects })));
          expect(fast?.csv.toString('utf8')).toBe(ordinary.toString('utf8'));
          const path = join(dir, `z${run}.csv`);
          writeFileSync(path, Buffer.concat([encodeCsvHead(columns, false, style), ordinary]));
          const read = await outside([
            { id: 'csv', kind: 'csv', path, delimiter: ';' },
            { id: 'want', kind: 'zone', zone, texts },
          ]);
          const rows = (read.csv as CsvRead).rows.slice(1);
          expect(rows.map((r) => r[0])).toEqual(read.want);
          expect(rows.map((r) => r[1])).toEqual(objects.map((o) => o.plain));
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 30) },
    );
  }, 300_000);

  it('every minute of the two hours either side of each change, from both encoders, is what zoneinfo says', async () => {
    const columns: Column[] = [{ key: 'at', title: 'at' }];
    const jobs: Job[] = [];
    const cases = EDGES.map(([zone, utc], i) => {
      const texts = Array.from({ length: 241 }, (_, m) => zonedText(Date.parse(utc) + (m - 120) * 60_000 + 7000, m % 3 === 0 ? 0 : 330, true, 'T', ''));
      const style: CsvStyle = { timeZone: zone };
      const objects = texts.map((at) => ({ at }));
      const fast = transcoderFor(columns, style).transcode(Buffer.from(JSON.stringify({ total: objects.length, data: objects })));
      jobs.push({ id: `want${i}`, kind: 'zone', zone, texts });
      return { fast: fast!.csv.toString().split('\r\n').slice(0, -1), ordinary: encodeCsvRows(objects, columns, style).toString().split('\r\n').slice(0, -1) };
    });
    const read = await outside(jobs);
    cases.forEach((c, i) => {
      expect(c.ordinary, EDGES[i]!.join(' ')).toEqual(read[`want${i}`]);
      expect(c.fast, EDGES[i]!.join(' ')).toEqual(read[`want${i}`]);
    });
  });

  it('leaves text that is no zoned date-time, and impossible dates, as the source wrote them', () => {
    const columns: Column[] = [{ key: 'v', title: 'v' }];
    const kept = ['2026-02-30T10:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T10:00:00+24:00', '2026-01-01T10:00:00', '2026-01-01', 'x2026-01-01T10:00:00Z', '2026-01-01T10:00:00Z ', '2026-01-01T10:00:00.1234567890Z', '2026-01-01T10:00:00.Z', '2026-01-01T10:00:00+08:0', '2026-01-01T10:00+0800x', '2026-01-01T10:00:00+8', '2026-1-01T10:00:00Z'];
    const style: CsvStyle = { timeZone: 'Asia/Shanghai' };
    expect(encodeCsvRows(kept.map((v) => ({ v })), columns, style).toString()).toBe(kept.map((v) => `${v}\r\n`).join(''));
    const moved = ['2026-01-01T10:00:00Z', '2025-12-31T23:30:00-08:00', '2026-01-01 10:00+08', '2026-01-01t10:00:00.25-0130', '2026-01-01T10:00:00z'];
    expect(encodeCsvRows(moved.map((v) => ({ v })), columns, style).toString()).toBe('2026-01-01 18:00:00\r\n2026-01-01 15:30:00\r\n2026-01-01 10:00:00\r\n2026-01-01 19:30:00.25\r\n2026-01-01 18:00:00\r\n');
  });
});

type Type = 'csv' | 'excel';

/** A task of `type` whose rows are staged one page a piece (as fetchPages stages them), rendered by the export's own renderer. */
async function render(type: Type, taskId: string, rows: Record<string, unknown>[], options: Record<string, unknown>, template?: unknown) {
  const storage = new MemoryStorage();
  const columns = Object.keys(rows[0]!).map((key) => ({ key, title: key }));
  const pageSize = 2;
  await writeMeta(storage, taskId, { total: rows.length, pageSize, columns, ...(template ? { template } : {}) });
  const ext = stagedExt(type);
  for (let p = 0; p * pageSize < rows.length; p++) await storage.putBuffer(keys.piece(taskId, p, p + 1, ext), encodeStaged(ext, rows.slice(p * pageSize, (p + 1) * pageSize), columns, csvStyle(options)));
  const task = { id: taskId, type, sourceUrl: 'http://127.0.0.1/rows', options, fileName: 'out', createdAt: new Date('2026-11-24T00:00:00Z') } as unknown as TaskRow;
  const outputs = await renderTask({ storage, dataDir: dir }, { task, settings: {} as StoredSettings, signal: new AbortController().signal, onProgress: () => {} });
  return Promise.all(
    outputs.map(async (o) => {
      const path = join(dir, `${taskId}-${o.name}`);
      const body = await storage.getBuffer(o.key);
      writeFileSync(path, body);
      return { name: o.name, path, body };
    }),
  );
}

describe('a tab-separated export', () => {
  it('is named .tsv, also compressed and in parts, and its head and rows use the tab', async () => {
    const rows = [{ id: 1, 'a\tb': 'x\ty' }, { id: 2, 'a\tb': 'p;q' }, { id: 3, 'a\tb': null }];
    const files = await render('csv', 'tsk_tsv', rows, { csv_delimiter: '\t', csv_line_ending: 'lf', compression: 'gzip', max_file_rows: 2 });
    expect(files.map((f) => f.name)).toEqual(['out-part-1.tsv.gz', 'out-part-2.tsv.gz', 'out.zip']);
    expect(gunzipSync(files[0]!.body).toString()).toBe('\ufeffid\t"a\tb"\n1\t"x\ty"\n2\tp;q\n');
    const plain = await render('csv', 'tsk_semicolon', rows, { csv_delimiter: ';', csv_bom: false });
    expect(plain.map((f) => f.name)).toEqual(['out.csv']);
    expect(plain[0]!.body.toString()).toBe('id;a\tb\r\n1;x\ty\r\n2;"p;q"\r\n3;\r\n');
  });
});

describe('xlsx: autofilter and time_zone read by openpyxl', () => {
  const rows = [
    { id: 1, at: '2026-03-08T06:59:59Z', note: '2026-03-08T06:59:59Z' },
    { id: 2, at: '2026-03-08T07:00:00Z', note: 'plain text' },
    { id: 3, at: '2026-11-01T05:30:00Z', note: '2026-11-01T01:30:00-05:00' },
    { id: 4, at: '2026-11-01T06:30:00+00:00', note: null },
    { id: 5, at: '2026-03-08 01:30:00', note: '2026-03-08 01:30:00' },
  ];
  const flat = [{ name: 'id', title: 'ID', type: 'integer' }, { name: 'at', title: 'At', type: 'datetime' }, { name: 'note', title: 'Note' }];
  const tree = [{ name: 'id', title: 'ID', type: 'integer' }, { title: 'When', children: [{ name: 'at', title: 'At', type: 'datetime' }, { name: 'note', title: 'Note' }] }];

  it('a filter on the table header of every part (the last header row of a tree), off when asked; date-times shown in the zone', async () => {
    const split = await render('excel', 'tsk_xf', rows, { time_zone: 'America/New_York', max_file_rows: 3, title: 'Orders' }, flat);
    const treeFile = await render('excel', 'tsk_xt', rows, { time_zone: 'America/New_York' }, tree);
    const off = await render('excel', 'tsk_xo', rows, { autofilter: false }, flat);
    const read = await outside([
      ...split.filter((f) => f.name.endsWith('.xlsx')).map((f, i): Job => ({ id: `split${i}`, kind: 'xlsx', path: f.path })),
      { id: 'tree', kind: 'xlsx', path: treeFile[0]!.path },
      { id: 'off', kind: 'xlsx', path: off[0]!.path },
      { id: 'want', kind: 'zone', zone: 'America/New_York', texts: rows.slice(0, 4).map((r) => r.at) },
    ]);
    const want = read.want as string[];
    const [p1, p2] = [(read.split0 as SheetRead[])[0]!, (read.split1 as SheetRead[])[0]!];
    // The title is row 1, the header row 2; each part filters its own rows.
    expect([p1.filter, p2.filter]).toEqual(['A2:C5', 'A2:C4']);
    const data = [...p1.rows.slice(2), ...p2.rows.slice(2)];
    expect(data.map((r) => r[1])).toEqual([...want, '2026-03-08 01:30:00']);
    expect(data.map((r) => r[2])).toEqual([want[0], 'plain text', '2026-11-01 01:30:00', null, '2026-03-08 01:30:00']);
    const t = (read.tree as SheetRead[])[0]!;
    expect(t.rows.slice(0, 2)).toEqual([['ID', 'When', null], [null, 'At', 'Note']]);
    expect(t.filter).toBe('A2:C7');
    expect((read.off as SheetRead[])[0]!.filter).toBeNull();
    // The hidden name Excel gives the filter's range, for LibreOffice and Excel alike.
    const workbook = (await import('yauzl')).default;
    expect(await entryText(workbook, treeFile[0]!.path, 'xl/workbook.xml')).toContain(`<definedName name="_xlnm._FilterDatabase" localSheetId="0" hidden="1">'Sheet1'!$A$2:$C$7</definedName>`);
  }, 60_000);
});

describe('xlsx: the header filter of each sheet of a workbook of several', () => {
  it('every sheet filters its own table, and the workbook names each range for its own sheet', async () => {
    const sheet = (name: string, rows: number, title?: string) => ({
      name,
      title,
      layout: buildLayout(null, [{ key: 'a', title: 'A' }, { key: 'b', title: 'B' }]),
      pages: (async function* () {
        yield Array.from({ length: rows }, (_, i) => ({ a: i, b: `${name} ${i}` }));
      })(),
    });
    const [part] = await writeSheets([sheet('Orders', 3), sheet("Refunds 'Q4'", 0, 'Refunds'), sheet('Fees', 2)], {
      maxRows: 1000,
      maxBytes: 50 << 20,
      pathFor: () => join(dir, 'sheets.xlsx'),
      mtime: new Date('2026-11-27T00:00:00Z'),
    });
    const read = (await readDialects([{ id: 'book', kind: 'xlsx', path: part!.path }])).book as SheetRead[];
    // A sheet without data rows filters its header row alone; a title moves the header down a row.
    expect(read.map((s) => [s.name, s.filter])).toEqual([['Orders', 'A1:B4'], ["Refunds 'Q4'", 'A2:B2'], ['Fees', 'A1:B3']]);
    const workbook = await entryText((await import('yauzl')).default, part!.path, 'xl/workbook.xml');
    expect(workbook).toContain(`<definedNames><definedName name="_xlnm._FilterDatabase" localSheetId="0" hidden="1">'Orders'!$A$1:$B$4</definedName><definedName name="_xlnm._FilterDatabase" localSheetId="1" hidden="1">'Refunds ''Q4'''!$A$2:$B$2</definedName>`);
  });
});

async function entryText(yauzl: typeof import('yauzl'), path: string, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      zip.on('entry', (e: import('yauzl').Entry) => {
        if (e.fileName !== name) return zip.readEntry();
        zip.openReadStream(e, (err2, stream) => {
          if (err2) return reject(err2);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            zip.close();
            resolve(Buffer.concat(chunks).toString('utf8'));
          });
        });
      });
      zip.on('end', () => reject(new Error(`${name} is not in ${path}`)));
      zip.readEntry();
    });
  });
}
