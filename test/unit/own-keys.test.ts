// No value from a prototype: a row without a key named like a member of Object.prototype
// (constructor, toString, __proto__, …) reads that key as absent in every format and on both CSV
// paths (the byte transcoder and encodeCsvRows), and a template's colour or number format spelt
// like one is no colour and no built-in format. Rendered through the export's own renderers from
// staged pieces (a memory store), read back with exceljs and JSON.parse.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskRow } from '../../db/schema.js';
import type { StoredSettings } from '../../model/project-settings.js';
import { MemoryStorage } from '../../platform/storage/memory.js';
import { rowColumns, type Column } from '../../domain/formats/columns.js';
import { encodeCsvRows } from '../../domain/formats/csv/encode.js';
import { CsvTranscoder } from '../../domain/formats/csv/transcode.js';
import { encodeJsonLines } from '../../domain/formats/jsonl.js';
import { JsonlTranscoder } from '../../domain/formats/jsonl-transcode.js';
import { cssColor } from '../../domain/formats/template/html.js';
import { withRows } from '../../domain/formats/template/schema.js';
import { parseArea } from '../../domain/formats/template/areas.js';
import { keys } from '../../domain/staging/keys.js';
import { writeMeta } from '../../domain/staging/meta.js';
import { encodeStaged, stagedExt } from '../../domain/staging/pieces.js';
import { renderTask } from '../../domain/staging/render.js';
import { readSheet, rowValues, zipEntries } from '../support/xlsx.js';

const dataDir = mkdtempSync(join(tmpdir(), 'dc-own-keys-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const NAMES = ['constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'toLocaleString', '__defineGetter__'];
// The first row has every such key (so they are the columns); the second none; the third only __proto__.
const PAGE = `{"total":3,"data":[{${NAMES.map((k, i) => `"${k}":${i}`).join(',')}},{"id":1},{"__proto__":"own"}]}`;
const parsed = JSON.parse(PAGE) as { data: unknown[] };
const columns: Column[] = rowColumns(parsed.data[0]);

async function rendered(type: 'csv' | 'jsonl' | 'excel', template?: unknown): Promise<Buffer> {
  const storage = new MemoryStorage();
  const taskId = `tsk_own_${type}`;
  const cols = template ? [{ key: 'constructor', title: 'c' }] : columns;
  await writeMeta(storage, taskId, { total: 3, pageSize: 3, columns: cols, ...(template ? { template } : {}) });
  const ext = stagedExt(type);
  await storage.putBuffer(keys.piece(taskId, 0, 1, ext), encodeStaged(ext, parsed.data, cols));
  const task = { id: taskId, type, options: { csv_bom: false }, fileName: 'out', createdAt: new Date('2026-11-24T00:00:00Z') } as unknown as TaskRow;
  const [out] = await renderTask({ storage, dataDir }, { task, settings: {} as StoredSettings, signal: new AbortController().signal, onProgress: () => {} });
  return storage.getBuffer(out!.key);
}

const absentRow = NAMES.map(() => '');
const protoRow = NAMES.map((k) => (k === '__proto__' ? 'own' : ''));

describe('a key named like a member of Object.prototype, absent from a row', () => {
  it('is an empty CSV cell on the ordinary path (was "Cannot read properties of undefined")', () => {
    const csv = parse(encodeCsvRows(parsed.data, columns)) as string[][];
    expect(csv).toEqual([NAMES.map((_, i) => String(i)), absentRow, protoRow]);
  });

  it('is an empty CSV cell on the byte path, which agrees with the ordinary one', () => {
    const fast = new CsvTranscoder(columns).transcode(Buffer.from(PAGE));
    expect(fast).not.toBeNull();
    expect(fast!.csv.toString()).toBe(encodeCsvRows(parsed.data, columns).toString());
  });

  it('is null in JSON Lines on both paths', () => {
    const lines = encodeJsonLines(parsed.data, columns).toString().trim().split('\n');
    const objects = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objects.map((o) => NAMES.map((k) => (Object.hasOwn(o, k) ? o[k] : 'MISSING')))).toEqual([
      NAMES.map((_, i) => i),
      NAMES.map(() => null),
      NAMES.map((k) => (k === '__proto__' ? 'own' : null)),
    ]);
    expect(new JsonlTranscoder(columns).transcode(Buffer.from(PAGE))!.lines.toString()).toBe(lines.join('\n') + '\n');
  });

  it('renders CSV and JSON Lines from staged pieces as above', async () => {
    expect(parse(await rendered('csv'))).toEqual([NAMES, NAMES.map((_, i) => String(i)), absentRow, protoRow]);
    expect((await rendered('jsonl')).toString()).toContain('"constructor":null');
  });

  it('is an empty xlsx cell (was the function\'s text "function Object() { [native code] }")', async () => {
    const ws = await readSheet(await rendered('excel'));
    expect(rowValues(ws, 1)).toEqual(NAMES);
    expect(rowValues(ws, 2)).toEqual(NAMES.map((_, i) => i));
    expect(rowValues(ws, 3)).toEqual(NAMES.map(() => null));
    expect(rowValues(ws, 4)).toEqual(protoRow.map((v) => v || null));
  });
});

describe("a template's colour or number format spelt like a member of Object.prototype", () => {
  it('is no colour: the template is refused, and the summary\'s HTML colour is ignored', () => {
    const res = withRows.safeParse({ ceil: [{ name: 'a', title: 'A', color: 'constructor' }] });
    expect(res.success).toBe(false);
    expect(cssColor('constructor')).toBeUndefined();
    expect(cssColor('toString')).toBeUndefined();
    expect(cssColor('red')).toBe('FFFF0000');
  });

  it('is a custom number format, not the index Object.prototype would give', async () => {
    const template = { ceil: [{ name: 'constructor', title: 'c', type: 'number', format: 'constructor' }] };
    expect(withRows.safeParse(template).success).toBe(true);
    const styles = (await zipEntries(await rendered('excel', template))).get('xl/styles.xml')!.toString();
    expect(styles).not.toContain('function');
    expect(styles).toMatch(/<numFmt numFmtId="16\d" formatCode="constructor"\/>/);
  });
});

describe('a header or footer pair keyed "__proto__"', () => {
  // JSON.parse makes it an own key; zod's record and Object.assign copied it into the prototype setter and dropped it.
  it('stays a pair, in its place, in every form of an area', () => {
    const pairs = (text: string) => {
      const r = parseArea(JSON.parse(text));
      if (!r.ok || !r.area) throw new Error(JSON.stringify(r));
      return r.area.kind === 'flat' ? [r.area.pairs] : r.area.rows;
    };
    expect(pairs('{"__proto__":"x","a":1}')).toEqual([[{ key: '__proto__', value: 'x' }, { key: 'a', value: 1 }]]);
    expect(pairs('[{"__proto__":{"q":1}},{"\\u0000k":2}]')).toEqual([[{ key: '__proto__', value: '{"q":1}' }], [{ key: '\u0000k', value: 2 }]]);
    expect(pairs('[[{"b":2},{"__proto__":"y"}]]')).toEqual([[{ key: 'b', value: 2 }, { key: '__proto__', value: 'y' }]]);
  });
});
