// The JSON-bytes-to-CSV path (domain/formats/csv/transcode.ts) against the ordinary one,
// encodeCsvRows(JSON.parse(page).data): on every page it takes, the same bytes, total and row count;
// on every page JSON.parse refuses, it must give up (null) so the ordinary path reports the error.
import { describe, expect, it } from 'vitest';
import type { Column } from '../../domain/formats/columns.js';
import { encodeCsvRows } from '../../domain/formats/csv/encode.js';
import { CsvTranscoder } from '../../domain/formats/csv/transcode.js';
import { generatedPages, mutatedPages } from '../support/json-pages.js';

/** What the ordinary path makes of a page: its rows' CSV, or 'refused'. */
function ordinary(text: string, columns: Column[]): { csv: Buffer; total: unknown; rows: number } | 'refused' {
  let json: { total?: unknown; data?: unknown };
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    return 'refused';
  }
  if (!Array.isArray(json.data) || json.data.some((d) => typeof d !== 'object' || d === null)) return 'refused';
  return { csv: encodeCsvRows(json.data, columns), total: json.total, rows: json.data.length };
}

const cols = (...keys: string[]): Column[] => keys.map((key) => ({ key, title: key }));

function check(t: CsvTranscoder, text: string, columns: Column[], bytes = Buffer.from(text, 'utf8')): boolean {
  const fast = t.transcode(bytes);
  const want = ordinary(bytes.toString('utf8'), columns);
  if (fast === null) return false;
  expect(want, text).not.toBe('refused');
  if (want === 'refused') return false;
  expect(fast.csv.toString('utf8'), text).toBe(want.csv.toString('utf8'));
  expect(fast.csv.equals(want.csv)).toBe(true);
  expect(fast.rows).toBe(want.rows);
  expect(fast.total).toBe(want.total);
  return true;
}

describe('CsvTranscoder', () => {
  it('writes the same bytes as JSON.parse + encodeCsvRows on generated pages, and takes most of them', () => {
    const taken = generatedPages((text, keys) => {
      const columns = cols(...keys);
      return check(new CsvTranscoder(columns), text, columns);
    });
    // Escapes in keys, odd totals and duplicates send some pages the ordinary way; most stay here.
    expect(taken).toBeGreaterThan(3000 * 0.5);
  });

  it('never takes a page JSON.parse refuses, nor one changed by a byte (then it matches or gives up)', () => {
    const columns = cols('id', 'name', 'amount');
    const t = new CsvTranscoder(columns);
    for (const text of mutatedPages()) check(t, text, columns);
  });

  it('gives up on invalid JSON and on shapes it leaves to the ordinary path', () => {
    const t = new CsvTranscoder(cols('a'));
    const refused = [
      '{"total":1,"data":[{"a":1,}]}',
      '{"total":1,"data":[{"a":1}],}',
      '{"total":1,"data":[{"a":01}]}',
      '{"total":1,"data":[{"a":.5}]}',
      '{"total":1,"data":[{"a":1.}]}',
      '{"total":1,"data":[{"a":+1}]}',
      '{"total":1,"data":[{"a":tru}]}',
      '{"total":1,"data":[{"a":NaN}]}',
      '{"total":1,"data":[{"b":"\\q"}]}',
      '{"total":1,"data":[{"a":"x',
      '{"total":1,"data":[{"a":"\u0001"}]}',
      '\ufeff{"total":1,"data":[{"a":1}]}',
      '{"total":1,"data":[{"a":1}]} x',
      '{"total":1,"data":[{"a":{"b":}}]}',
      '{"total":1,"data":[1]}',
      '{"total":1,"data":[[1]]}',
      '{"total":1,"data":[null]}',
      '{"total":1}',
      '{"data":[]}',
      '{"total":1,"data":[{"a":1}],"data":[]}',
    ];
    for (const text of refused) expect(t.transcode(Buffer.from(text, 'utf8')), text).toBeNull();
    const invalidUtf8 = Buffer.concat([Buffer.from('{"total":1,"data":[{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}]}')]);
    expect(t.transcode(invalidUtf8)).toBeNull();
    // Columns named like Object.prototype's properties: both paths read own keys only, so this one
    // takes them (test/unit/own-keys.test.ts compares the two).
    expect(new CsvTranscoder(cols('toString')).transcode(Buffer.from('{"total":1,"data":[{}]}'))?.csv.toString()).toBe('""\r\n');
  });

  it('takes a page far larger than its scratch space, and the next page after it', () => {
    const columns = cols('id', 'text');
    const t = new CsvTranscoder(columns);
    const big = JSON.stringify({ total: 2, data: [{ id: 1, text: 'x'.repeat(3 << 20) }, { id: 2, text: 'y, z' }] });
    const small = JSON.stringify({ total: 1, data: [{ id: 3, text: 'après' }] });
    expect(check(t, big, columns)).toBe(true);
    expect(check(t, small, columns)).toBe(true);
  });

  it('takes the plain pages sources send, with commas, quotes and Chinese text', () => {
    const columns = cols('id', 'customer', 'amount', 'remark');
    const text = JSON.stringify({ total: 2, data: [{ id: 1, customer: '客户 1', amount: 12.5, remark: 'gift, wrap "red"' }, { id: 2, customer: '=HYPERLINK()', amount: -0.25, remark: null }] });
    expect(check(new CsvTranscoder(columns), text, columns)).toBe(true);
    expect(new CsvTranscoder(columns).transcode(Buffer.from(text))!.csv.toString()).toBe('1,客户 1,12.5,"gift, wrap ""red"""\r\n2,\'=HYPERLINK(),-0.25,\r\n');
  });
});
