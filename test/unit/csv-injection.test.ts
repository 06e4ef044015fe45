// Formula neutralisation (OWASP CSV injection) in the CSV encoder: every form a spreadsheet may run
// — = + - @ TAB CR LF and the full-width ＝ ＋ － ＠ — gets a leading apostrophe, in header cells and
// data cells, on the fast path exactly as csv-stringify writes it; plain numbers stay as they are.
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { csvOptions, encodeCsvHead, encodeCsvRows, escapeFormula } from '../../domain/formats/csv/encode.js';

const FORMS = ['=', '+', '-', '@', '\t', '\r', '\n', '\uff1d', '\uff0b', '\uff0d', '\uff20'];

describe('formula neutralisation', () => {
  it.each(FORMS.map((f) => [JSON.stringify(f), f]))('escapes text starting with %s, in data cells and header cells', (_name, f) => {
    const text = `${f}HYPERLINK("http://evil.example","x")`;
    expect(escapeFormula(text)).toBe(`'${text}`);
    const columns = [{ key: 'a', title: text }, { key: 'b', title: 'plain' }];
    const head = parse(encodeCsvHead(columns, false).toString('utf8'))[0];
    expect(head).toEqual([`'${text}`, 'plain']);
    const row = parse(encodeCsvRows([{ a: text, b: `${f}1+1` }], columns).toString('utf8'))[0];
    expect(row).toEqual([`'${text}`, `'${f}1+1`]);
  });

  it('leaves plain ASCII numbers alone, and text with a formula character later on', () => {
    for (const s of ['-12.5', '+3', '-1e5', '12', 'a=b', ' =1', '客户＝1']) expect(escapeFormula(s)).toBe(s);
    // a full-width sign before digits is not a plain number: escaped
    expect(escapeFormula('－12.5')).toBe("'－12.5");
    expect(escapeFormula('\n-12.5')).toBe("'\n-12.5");
    const text = encodeCsvRows([{ a: -12.5, b: '-12.5', c: '\n=1', d: '＠x' }], ['a', 'b', 'c', 'd'].map((key) => ({ key, title: key }))).toString('utf8');
    expect(text).toBe('-12.5,-12.5,"\'\n=1",\'＠x\r\n');
  });

  it('objects and arrays written as JSON text are checked like any text', () => {
    const text = encodeCsvRows([{ a: ['=1'], b: { x: 1 } }], [{ key: 'a', title: 'a' }, { key: 'b', title: 'b' }]).toString('utf8');
    expect(parse(text)[0]).toEqual(['["=1"]', '{"x":1}']);
  });

  it('equals csv-stringify (with escapeFormula) for random cells full of formula forms', () => {
    // xorshift: reproducible
    let x = 9_182_736;
    const rnd = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
    const alphabet = [...FORMS, 'a', '1', '.', ',', '"', '\r\n', ' ', '客', '😀', "'", 'e'];
    const value = () => {
      if (rnd() < 0.15) return Math.round((rnd() - 0.5) * 1e4) / 100;
      let s = '';
      for (let n = Math.floor(rnd() * 6); n > 0; n--) s += alphabet[Math.floor(rnd() * alphabet.length)];
      return s;
    };
    const keys = ['a', 'b', 'c'];
    const columns = keys.map((key) => ({ key, title: key }));
    for (let round = 0; round < 200; round++) {
      const rows = Array.from({ length: 30 }, () => ({ a: value(), b: value(), c: value() }));
      const want = stringify(rows.map((r) => keys.map((k) => (typeof r[k as 'a'] === 'string' ? escapeFormula(r[k as 'a'] as string) : String(r[k as 'a'])))), csvOptions);
      expect(encodeCsvRows(rows, columns).toString('utf8')).toBe(want);
      const titles = [value(), value(), value()].map(String);
      expect(encodeCsvHead(titles.map((title, i) => ({ key: keys[i]!, title })), false).toString('utf8')).toBe(stringify([titles.map(escapeFormula)], csvOptions));
    }
  });
});
