// The charts of an xlsx preview, read from the file the API rendered: each chart part's type,
// title and series, their cell references resolved against the preview's own rows (the file has
// no cached values), so the page can draw them (chart-svg.tsx). And the submit form's check of a
// `charts` field before it is sent.

export type ChartKind = 'column' | 'bar' | 'line' | 'pie' | 'area';
export interface ChartData {
  kind: ChartKind;
  title: string;
  categories: string[];
  series: { name: string; values: number[] }[];
}

const all = (node: Document | Element, tag: string) => Array.from(node.getElementsByTagName(tag));
const attr = (node: Document | Element, tag: string, name = 'val') => node.getElementsByTagName(tag)[0]?.getAttribute(name) ?? null;

/** A sheet's cells by reference ("B4"): numbers as numbers, the rest as text. */
export function cellValues(doc: Document): Map<string, string | number> {
  const out = new Map<string, string | number>();
  for (const c of all(doc, 'c')) {
    const inline = c.getElementsByTagName('is')[0];
    const v = c.getElementsByTagName('v')[0]?.textContent ?? '';
    if (inline) out.set(c.getAttribute('r') ?? '', all(inline, 't').map((t) => t.textContent).join(''));
    else if (v !== '') out.set(c.getAttribute('r') ?? '', c.getAttribute('t') ? v : Number(v));
  }
  return out;
}

const colIndex = (letters: string) => [...letters].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
const colLetters = (i: number): string => (i < 0 ? '' : colLetters(Math.floor(i / 26) - 1) + String.fromCharCode(65 + (i % 26)));

/** 'Sheet'!$A$4:$B$9 → the sheet and, row by row, the cells' references of each row. */
function rangeCells(f: string): { sheet: string; rows: string[][] } | null {
  const m = /^'((?:[^']|'')+)'!\$?([A-Z]+)\$?(\d+)(?::\$?([A-Z]+)\$?(\d+))?$/.exec(f.trim());
  if (!m) return null;
  const [c1, r1] = [colIndex(m[2]!), Number(m[3])];
  const [c2, r2] = [m[4] ? colIndex(m[4]) : c1, m[5] ? Number(m[5]) : r1];
  const rows: string[][] = [];
  for (let r = r1; r <= r2; r++) rows.push(Array.from({ length: c2 - c1 + 1 }, (_, k) => `${colLetters(c1 + k)}${r}`));
  return { sheet: m[1]!.replace(/''/g, "'"), rows };
}

function kindOf(doc: Document): ChartKind | null {
  if (doc.getElementsByTagName('c:pieChart').length) return 'pie';
  if (doc.getElementsByTagName('c:lineChart').length) return 'line';
  if (doc.getElementsByTagName('c:areaChart').length) return 'area';
  if (doc.getElementsByTagName('c:barChart').length) return attr(doc, 'c:barDir') === 'bar' ? 'bar' : 'column';
  return null;
}

/** One chart part, its references read from `sheets` (cells by sheet name). */
export function readChart(doc: Document, sheets: Map<string, Map<string, string | number>>): ChartData | null {
  const kind = kindOf(doc);
  if (!kind) return null;
  const title = doc.getElementsByTagName('c:chart')[0]?.getElementsByTagName('c:title')[0];
  const chartTitle = title && title.parentElement?.tagName === 'c:chart' ? all(title, 'a:t').map((t) => t.textContent).join('') : '';
  const lookup = (f: string | null | undefined) => {
    const r = f ? rangeCells(f) : null;
    const cells = r ? sheets.get(r.sheet) : undefined;
    return r && cells ? r.rows.map((row) => row.map((ref) => cells.get(ref))) : [];
  };
  let categories: string[] = [];
  const series = all(doc, 'c:ser').map((ser, i) => {
    const name = ser.getElementsByTagName('c:tx')[0]?.getElementsByTagName('c:v')[0]?.textContent ?? `Series ${i + 1}`;
    const cat = ser.getElementsByTagName('c:cat')[0]?.getElementsByTagName('c:f')[0]?.textContent;
    // A multi-level category (row titles): the deepest title given on each row, else the one above it.
    let last = '';
    if (i === 0) categories = lookup(cat).map((row) => (last = row.filter((v) => v !== undefined && v !== '').map(String).pop() ?? last));
    const val = ser.getElementsByTagName('c:val')[0]?.getElementsByTagName('c:f')[0]?.textContent;
    return { name, values: lookup(val).map((row) => (typeof row[0] === 'number' ? row[0] : 0)) };
  });
  return { kind, title: chartTitle, categories, series };
}

export const CHART_TYPES = ['column', 'bar', 'line', 'pie', 'area'] as const;
export const CHART_PLACES = ['right', 'below', 'sheet'] as const;
/** Charts a sheet may have: the server's limit (domain/formats/charts.ts), not imported (it brings zod). */
export const MAX_CHARTS = 8;
const KINDS: readonly string[] = CHART_TYPES;
const PLACES: readonly string[] = CHART_PLACES;

/** What is wrong with the submit form's charts text, or null (the API checks the column names). */
export function chartsProblem(text: string): string | null {
  if (!text.trim()) return null;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'not valid JSON';
  }
  if (!Array.isArray(v)) return 'a list of charts: [{ "type", "category", "series" }]';
  if (v.length > MAX_CHARTS) return `at most ${MAX_CHARTS} charts`;
  for (const [i, c] of v.entries()) {
    const o = (c ?? {}) as Record<string, unknown>;
    const at = `chart ${i + 1}`;
    if (!KINDS.includes(String(o.type))) return `${at}: type is one of ${KINDS.join(', ')}`;
    if (typeof o.category !== 'string' || !o.category) return `${at}: category names a column`;
    if (!Array.isArray(o.series) || !o.series.length || o.series.some((s) => typeof s !== 'string' || !s)) return `${at}: series is a list of column names`;
    if (o.place !== undefined && !PLACES.includes(String(o.place))) return `${at}: place is one of ${PLACES.join(', ')}`;
  }
  return null;
}
