// The JSON-bytes-to-CSV path (domain/formats/csv/transcode.ts) against the ordinary one,
// encodeCsvRows(JSON.parse(page).data): on every page it takes, the same bytes, total and row count;
// on every page JSON.parse refuses, it must give up (null) so the ordinary path reports the error.
import { describe, expect, it } from 'vitest';
import type { Column } from '../../domain/formats/columns.js';
import { encodeCsvRows } from '../../domain/formats/csv/encode.js';
import { CsvTranscoder } from '../../domain/formats/csv/transcode.js';

/** mulberry32: a seeded generator, so a failure is the same failure on every run. */
function rng(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!, chance: (p: number) => next() < p };
}

const STRINGS = ['', 'plain', 'a,b', 'say "hi"', 'line\nbreak', 'cr\rhere', '\ttab', '=1+1', '+86 123', '-12.5', '-x', '@home', '＝SUM(A1)', '＋1', '－', '＠x', '客户 12', '😀 emoji', '\u0000nul', '\u2028sep', '\ud800lone', 'back\\slash', 'a/b', '\ufeffbom', ' lead', 'trail ', '"', ',', 'ｘ＝1', '€'];
const NUMBERS = ['0', '-0', '1', '-1', '12.5', '1.50', '1.0', '1e5', '1E-7', '-2.5e+3', '0.000001', '0.0000001', '0.0000012', '123456789012345', '1234567890123456', '12345678901234567890', '0.1', '3.14159265358979', '3.141592653589793', '9007199254740993', '100', '1e21', '-0.5', '-0.0', '792.3', '0.30000000000000004'];
const NESTED = ['{"a":1}', '[1,"=x"]', '[]', '{}', '{ "k" : [ 1 , 2.50 ] }', '{"a":"]}"}', '[null,true,{"x":"y,z"}]', '{"\\u0041":"\\n"}'];
const WS = ['', '', '', ' ', '\n', '\r\n  ', '\t'];

type R = ReturnType<typeof rng>;

/** A JSON string literal, sometimes with escapes where none are needed (\/ and \u00xx). */
function str(r: R, s: string): string {
  const json = JSON.stringify(s);
  if (!r.chance(0.15) || s.length === 0) return json;
  return json.replace(/[a-z/]/, (c) => (c === '/' ? '\\/' : `\\u00${c.charCodeAt(0).toString(16)}`));
}

function value(r: R): string {
  const k = r.next();
  if (k < 0.5) return str(r, r.pick(STRINGS) + (r.chance(0.3) ? String(Math.floor(r.next() * 1000)) : ''));
  if (k < 0.8) return r.pick(NUMBERS);
  if (k < 0.9) return r.pick(['true', 'false', 'null']);
  return r.pick(NESTED);
}

function page(r: R, keys: string[]): string {
  const w = () => r.pick(WS);
  const rows: string[] = [];
  const n = r.chance(0.1) ? 0 : 1 + Math.floor(r.next() * 6);
  for (let i = 0; i < n; i++) {
    const entries: string[] = [];
    const order = r.chance(0.3) ? [...keys].sort(() => r.next() - 0.5) : keys;
    for (const key of order) {
      if (r.chance(0.1)) continue;
      entries.push(`${w()}${str(r, key)}${w()}:${w()}${value(r)}${w()}`);
      if (r.chance(0.05)) entries.push(`${str(r, key)}:${value(r)}`); // a duplicate: the last wins
    }
    if (r.chance(0.1)) entries.push(`"extra":${value(r)}`);
    rows.push(`${w()}{${entries.join(',')}}${w()}`);
  }
  const total = r.chance(0.9) ? String(n) : r.pick(['1.0', '-1', '1e1', '"3"', '12']);
  const parts = [`${w()}"total"${w()}:${w()}${total}`, `"data":${w()}[${rows.join(',')}]`];
  if (r.chance(0.2)) parts.push(`"template":${r.pick(NESTED)}`, `"footer":${value(r)}`);
  if (r.chance(0.5)) parts.reverse();
  return `${w()}{${parts.join(`,${w()}`)}}${w()}`;
}

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
    const r = rng(20261124);
    const columnSets = [cols('id', 'name', 'amount', 'note'), cols('客户', 'a"b', 'x\\y', 'missing'), cols('only')];
    let taken = 0;
    const pages = 3000;
    for (let i = 0; i < pages; i++) {
      const columns = r.pick(columnSets);
      if (check(new CsvTranscoder(columns), page(r, columns.map((c) => c.key).concat(r.chance(0.2) ? ['other'] : [])), columns)) taken++;
    }
    // Escapes in keys, odd totals and duplicates send some pages the ordinary way; most stay here.
    expect(taken).toBeGreaterThan(pages * 0.5);
  });

  it('never takes a page JSON.parse refuses, nor one changed by a byte (then it matches or gives up)', () => {
    const r = rng(7);
    const columns = cols('id', 'name', 'amount');
    const t = new CsvTranscoder(columns);
    const bytes = ['', ',', '"', '\\', '{', '}', '[', ']', ':', '0', '-', '.', 'e', 'x', ' ', '\u0001', '\n'];
    for (let i = 0; i < 4000; i++) {
      const text = page(r, ['id', 'name', 'amount']);
      const at = Math.floor(r.next() * text.length);
      const mutated = text.slice(0, at) + r.pick(bytes) + text.slice(at + (r.chance(0.5) ? 1 : 0));
      check(t, mutated, columns);
    }
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
    // Columns named like Object.prototype's properties read inherited values in the ordinary path.
    expect(new CsvTranscoder(cols('toString')).transcode(Buffer.from('{"total":0,"data":[]}'))).toBeNull();
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
