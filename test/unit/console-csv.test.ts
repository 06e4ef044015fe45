// The console's preview reads CSV in the browser (console/src/csv.ts): every dialect the service
// writes is read back cell for cell, and a file whose dialect was left to the project is read with
// the delimiter its header line shows.
import { describe, expect, it } from 'vitest';
import { parseCsv, sniffDelimiter } from '../../console/src/csv.js';
import { type CsvStyle, encodeCsvHead, encodeCsvRows } from '../../domain/formats/csv/encode.js';

const columns = [{ key: 'id', title: 'id' }, { key: 'note', title: 'a;b|c,d' }, { key: 'n', title: 'n' }];
const rows = [
  { id: 1, note: 'x,y;z|w\tv', n: 1.5 },
  { id: 2, note: '"quoted"\r\nline', n: null },
  { id: 3, note: '', n: -2 },
];
const want = [['id', 'a;b|c,d', 'n'], ['1', 'x,y;z|w\tv', '1.5'], ['2', '"quoted"\r\nline', ''], ['3', '', '-2']];

describe('the console preview reads every CSV dialect', () => {
  for (const delimiter of [',', ';', '\t', '|'] as const) {
    for (const lineEnding of ['crlf', 'lf'] as const) {
      it(`${JSON.stringify(delimiter)} ${lineEnding}: cells as written, the delimiter found from the header`, () => {
        const style: CsvStyle = { delimiter, lineEnding };
        const text = Buffer.concat([encodeCsvHead(columns, true, style), encodeCsvRows(rows, columns, style)]).toString('utf8');
        expect(parseCsv(text, delimiter)).toEqual(want);
        expect(sniffDelimiter(text.slice(1))).toBe(delimiter);
      });
    }
  }
});
