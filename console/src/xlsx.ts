// An xlsx preview as tables the page can show: each worksheet's cells with their merges (the
// template's header tree), number formats, bold and fill, read from the file the API rendered —
// so the page shows exactly what the export will hold, without a spreadsheet library.
import { cellValues, type ChartData, readChart } from './charts.js';
import { unzip } from './unzip.js';

export interface Cell {
  text: string;
  colSpan: number;
  rowSpan: number;
  bold: boolean;
  fill: string | null;
  align: string | null;
  numeric: boolean;
}
export interface Sheet {
  name: string;
  rows: (Cell | null)[][]; // null: covered by a merge
  /** The sheet's charts (a chart sheet has only these). */
  charts?: ChartData[];
}

interface Look {
  fmt: string;
  bold: boolean;
  fill: string | null;
  align: string | null;
}

const BUILTIN_DATES = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);
const xml = (bytes: Uint8Array | undefined) => new DOMParser().parseFromString(new TextDecoder().decode(bytes ?? new Uint8Array()), 'application/xml');
const all = (node: Document | Element, tag: string) => Array.from(node.getElementsByTagName(tag));

/** "C12" → [row 11, column 2], zero-based. */
function position(ref: string): [number, number] {
  const m = /^([A-Z]+)(\d+)$/.exec(ref)!;
  let col = 0;
  for (const ch of m[1]!) col = col * 26 + ch.charCodeAt(0) - 64;
  return [Number(m[2]) - 1, col - 1];
}

function looks(styles: Document): Look[] {
  const formats = new Map(all(styles, 'numFmt').map((f) => [Number(f.getAttribute('numFmtId')), f.getAttribute('formatCode') ?? '']));
  const fonts = all(styles, 'font').map((f) => f.getElementsByTagName('b').length > 0);
  const fills = all(styles, 'fill').map((f) => f.getElementsByTagName('fgColor')[0]?.getAttribute('rgb')?.slice(-6) ?? null);
  const xfs = styles.getElementsByTagName('cellXfs')[0];
  return (xfs ? all(xfs, 'xf') : []).map((xf) => {
    const id = Number(xf.getAttribute('numFmtId') ?? 0);
    return {
      fmt: formats.get(id) ?? (BUILTIN_DATES.has(id) ? 'yyyy-mm-dd' : id === 9 || id === 10 ? '0%' : ''),
      bold: fonts[Number(xf.getAttribute('fontId') ?? 0)] ?? false,
      fill: fills[Number(xf.getAttribute('fillId') ?? 0)] ?? null,
      align: xf.getElementsByTagName('alignment')[0]?.getAttribute('horizontal') ?? null,
    };
  });
}

/** A number as its format shows it: dates, percentages, fixed decimals, thousands separators. */
export function formatNumber(v: number, fmt: string): string {
  const bare = fmt.replace(/"[^"]*"|\[[^\]]*\]|\\./g, '');
  if (/[yd]/i.test(bare) || /h/i.test(bare)) {
    const d = new Date(Math.round((v - 25569) * 86400_000));
    const iso = d.toISOString();
    return /h/i.test(bare) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
  }
  const decimals = /0\.(0+)/.exec(bare)?.[1]?.length ?? 0;
  if (bare.includes('%')) return `${(v * 100).toFixed(decimals)}%`;
  if (!/[0#]/.test(bare)) return String(v);
  const text = v.toFixed(decimals);
  return bare.includes(',') ? Number(text).toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals }) : text;
}

function readSheet(doc: Document, name: string, styleOf: Look[]): Sheet {
  const grid: (Cell | null)[][] = [];
  let width = 0;
  for (const c of all(doc, 'c')) {
    const [r, col] = position(c.getAttribute('r') ?? 'A1');
    const look = styleOf[Number(c.getAttribute('s') ?? 0)];
    const t = c.getAttribute('t');
    const v = c.getElementsByTagName('v')[0]?.textContent ?? '';
    const inline = c.getElementsByTagName('is')[0];
    let text = inline ? all(inline, 't').map((x) => x.textContent).join('') : v;
    const numeric = !t && v !== '';
    if (numeric && look?.fmt) text = formatNumber(Number(v), look.fmt);
    if (t === 'b') text = v === '1' ? 'TRUE' : 'FALSE';
    (grid[r] ??= [])[col] = { text, colSpan: 1, rowSpan: 1, bold: look?.bold ?? false, fill: look?.fill && look.fill !== 'FFFFFF' ? `#${look.fill}` : null, align: look?.align ?? null, numeric };
    width = Math.max(width, col + 1);
  }
  const blank = (): Cell => ({ text: '', colSpan: 1, rowSpan: 1, bold: false, fill: null, align: null, numeric: false });
  const rows = Array.from({ length: grid.length }, (_, r) => Array.from({ length: width }, (_, c) => grid[r]?.[c] ?? blank()) as (Cell | null)[]);
  for (const m of all(doc, 'mergeCell')) {
    const [from, to] = (m.getAttribute('ref') ?? '').split(':') as [string, string];
    const [r1, c1] = position(from);
    const [r2, c2] = position(to);
    for (let r = r1; r <= r2; r++) for (let c = c1; c <= c2; c++) if (rows[r]) rows[r]![c] = null;
    const top = grid[r1]?.[c1] ?? blank();
    if (rows[r1]) rows[r1]![c1] = { ...top, colSpan: c2 - c1 + 1, rowSpan: r2 - r1 + 1 };
  }
  return { name, rows };
}

/** A part's relationship targets of one type, as paths in the zip, in rId order. */
function related(files: Map<string, Uint8Array>, part: string, type: string): string[] {
  const slash = part.lastIndexOf('/');
  const rels = files.get(`${part.slice(0, slash)}/_rels/${part.slice(slash + 1)}.rels`);
  if (!rels) return [];
  const base = part.slice(0, slash).split('/');
  return all(xml(rels), 'Relationship')
    .filter((r) => r.getAttribute('Type')?.endsWith(`/${type}`))
    .sort((a, b) => Number(a.getAttribute('Id')?.slice(3)) - Number(b.getAttribute('Id')?.slice(3)))
    .map((r) => {
      const parts = [...base];
      for (const seg of (r.getAttribute('Target') ?? '').split('/')) {
        if (seg === '..') parts.pop();
        else parts.push(seg);
      }
      return parts.join('/');
    });
}

export async function parseXlsx(bytes: Uint8Array): Promise<Sheet[]> {
  const files = await unzip(bytes);
  const book = xml(files.get('xl/workbook.xml'));
  const rels = xml(files.get('xl/_rels/workbook.xml.rels'));
  const target = new Map(all(rels, 'Relationship').map((r) => [r.getAttribute('Id'), r.getAttribute('Target') ?? '']));
  const styleOf = looks(xml(files.get('xl/styles.xml')));
  const parts = all(book, 'sheet').map((s) => {
    const rid = s.getAttribute('r:id') ?? s.getAttributeNS('http://schemas.openxmlformats.org/officeDocument/2006/relationships', 'id');
    return { name: s.getAttribute('name') ?? '', path: `xl/${(target.get(rid) ?? '').replace(/^\/?xl\//, '')}` };
  });
  const docs = parts.map((p) => xml(files.get(p.path)));
  const cells = new Map(parts.map((p, i) => [p.name, cellValues(docs[i]!)]));
  return parts.map((p, i) => {
    const charts = related(files, p.path, 'drawing')
      .flatMap((d) => related(files, d, 'chart'))
      .map((c) => readChart(xml(files.get(c)), cells))
      .filter((c): c is ChartData => c !== null);
    const sheet = p.path.includes('/chartsheets/') ? { name: p.name, rows: [] } : readSheet(docs[i]!, p.name, styleOf);
    return { ...sheet, charts };
  });
}
