// The Parquet render's byte path (ADR 0050) against the parse it replaces: the line scanner's
// values against JSON.parse's, momentAt against parseMoment, and the whole writer fed by lines
// against the same writer fed by parsed rows (the same file, byte for byte, or the same error).
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { momentAt, parseMoment, readMoment } from '../../domain/formats/parquet/dates.js';
import { ParquetParts } from '../../domain/formats/parquet/parts.js';
import { LineScanner } from '../../domain/formats/parquet/scan.js';
import { TypePass, uniqueKeys } from '../../domain/formats/parquet/types.js';
import { ownValue } from '../../domain/formats/own.js';
import { dateText, jsonRow, KEYS, same } from '../support/json-rows.js';

const row = jsonRow();
const line = (r: Record<string, unknown>) => Buffer.from(JSON.stringify(r), 'utf8');


describe('the line scanner', () => {
  it('reads every column value as JSON.parse does, or leaves the line to it', () => {
    const scanner = new LineScanner(KEYS);
    fc.assert(
      fc.property(row, fc.constantFrom('', ' ', '\t'), (r, pad) => {
        const b = Buffer.from(`${pad}${JSON.stringify(r)}${pad}`, 'utf8');
        // Only a line with an escaped key is left to JSON.parse.
        if (!scanner.scan(b, 0, b.length)) return Object.keys(r).some((k) => JSON.stringify(k).slice(1, -1) !== k);
        const parsed = JSON.parse(b.toString('utf8')) as unknown;
        return KEYS.every((k, i) => same(scanner.decoded(i), ownValue(parsed, k)));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps the last of a repeated key and refuses what JSON.parse refuses', () => {
    const scanner = new LineScanner(['a', 'b']);
    const scan = (s: string) => scanner.scan(Buffer.from(s), 0, Buffer.byteLength(s));
    expect(scan('{"a":1,"b":2,"a":3}')).toBe(true);
    expect(scanner.decoded(0)).toBe(3);
    expect(scan('{"a": -0 , "b" : 1.50}')).toBe(true);
    expect(Object.is(scanner.decoded(0), -0)).toBe(true);
    expect(scanner.decoded(1)).toBe(1.5);
    for (const bad of ['{"a":01}', '{"a":1.}', '{"a":tru}', '{"a":"x\u0001"}', '{"a":1', '{"a":1}x', '[1]', 'null', '{"a":[1,2}', '{"a":-}']) expect(scan(bad)).toBe(false);
  });

  it("reads a column's moment once a line, each line's own, each column's own", () => {
    const scanner = new LineScanner(['a', 'b']);
    const lines = [
      { a: '2024-02-29', b: '2024-03-01T10:00:00Z' },
      { a: '2024-02-29', b: '2024-03-01T10:00:00Z' },
      { a: '2024-02-30', b: '1999-12-31 23:59' },
      { a: 'x', b: '2024-03-01T10:00:00+01:00' },
      { a: '0001-01-01', b: 'x' },
    ];
    for (const r of lines) {
      const b = line(r);
      expect(scanner.scan(b, 0, b.length)).toBe(true);
      // Asked twice, in either order of the columns, as the type pass and the writer ask.
      for (const col of [1, 0, 0, 1]) {
        const s = Object.values(r)[col]!;
        const want = parseMoment(s);
        expect(scanner.momentOf(col)).toBe(want !== null);
        if (want) expect({ ...readMoment }).toEqual(want);
      }
    }
  });
});

describe('momentAt', () => {
  it('reads the same moments as parseMoment, from the bytes', () => {
    fc.assert(
      fc.property(fc.oneof(dateText, fc.string(), dateText.map((s) => `${s}x`), dateText.map((s) => s.slice(0, -1))), (s) => {
        const want = parseMoment(s);
        const b = Buffer.from(`"${s}"`, 'utf8');
        const got = momentAt(b, 1, b.length - 1);
        return want === null ? !got : got && readMoment.days === want.days && readMoment.ms === want.ms && readMoment.dateOnly === want.dateOnly && readMoment.zoned === want.zoned;
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('the Parquet writer fed by lines', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dc-pq-scan-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const columns = [...KEYS, 'id'].map((key) => ({ key, title: key }));
  const typed = [{ key: 'id', title: 'id', type: 'integer' }, { key: 'when', title: 'when', type: 'datetime' }, { key: 'amount', title: 'amount', type: 'number' }, ...KEYS.slice(3).map((key) => ({ key, title: key }))];

  /** The file (its sha256) or the error's sentence, with rows fed parsed or as lines. */
  async function render(cols: typeof columns, rows: Record<string, unknown>[], asLines: boolean, n: number, spell = line): Promise<string> {
    const scanner = new LineScanner(uniqueKeys(cols));
    const lines = rows.map(spell);
    try {
      const pass = new TypePass(cols);
      for (const [i, b] of lines.entries()) if (!asLines || !pass.addLine(scanner, b, 0, b.length)) pass.add(rows[i]!);
      const parts = new ParquetParts(cols, pass.kinds(), { maxRows: 7, maxBytes: 1e9 }, (k) => join(dir, `${n}-${asLines}-${k}.parquet`));
      for (const b of lines) {
        const full = (asLines ? parts.addLine(scanner, b, 0, b.length, b.length) : null) ?? parts.add(JSON.parse(b.toString()) as Record<string, unknown>, b.length);
        if (full) await parts.flushGroup();
      }
      const written = await parts.finish();
      return `${pass.kinds().join()} ${written.map((p) => createHash('sha256').update(readFileSync(p.path)).digest('hex')).join()}`;
    } catch (err) {
      return `error: ${(err as Error).message}`;
    }
  }

  it('writes escaped text as JSON.parse reads it (unescaped from the bytes, or parsed where it holds \\u)', async () => {
    const texts = ['gift, wrap "red"', 'a\\b/c\n\t\r\b\f', '\u0001 \u001f', 'é \u2028 😀 "', '\ud800', 'x\udc00y', '\\u0041', '', 'plain'];
    const rows = texts.map((n) => ({ n, 'é ü': `${n}!` }));
    const written = await render(columns, rows, true, -1);
    expect(written).toBe(await render(columns, rows, false, -1));
    expect(written).toMatch(/^string,/);
    // "\/" too, which JSON.stringify never writes: the same file.
    const slashed = (r: Record<string, unknown>) => Buffer.from(JSON.stringify(r).replaceAll('/', '\\/'), 'utf8');
    expect(slashed(rows[1]!).toString()).toContain('\\/');
    expect(await render(columns, rows, true, -2, slashed)).toBe(written);
  });

  it('writes the same files, byte for byte, as from parsed rows (or fails with the same sentence)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 20 }), fc.boolean(), async (rows, withTypes) => {
        n++;
        const cols = withTypes ? typed : columns;
        expect(await render(cols, rows, true, n)).toBe(await render(cols, rows, false, n));
      }),
      { numRuns: 150 },
    );
  });
});
