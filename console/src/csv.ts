// RFC 4180 text (the export's CSV: CRLF or LF, doubled quotes, a BOM) into rows of cells, in the
// export's dialect: a comma, semicolon, tab or pipe between fields.
const DELIMITERS = [',', ';', '\t', '|'];

/**
 * The delimiter of a file whose dialect the form left to the project: the candidate found most
 * often outside quotes in the header line (a title holding another one is quoted in its file).
 */
export function sniffDelimiter(text: string): string {
  const counts = new Map(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const ch of text.slice(0, 64 * 1024)) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  return [...counts].reduce((best, c) => (c[1] > best[1] ? c : best))[0];
}

export function parseCsv(text: string, delimiter = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const s = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quoted) {
      if (ch !== '"') cell += ch;
      else if (s[i + 1] === '"') {
        cell += '"';
        i++;
      } else quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === delimiter) endCell();
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && s[i + 1] === '\n') i++;
      endCell();
      rows.push(row);
      row = [];
    } else cell += ch;
  }
  if (cell !== '' || row.length) {
    endCell();
    rows.push(row);
  }
  return rows;
}
