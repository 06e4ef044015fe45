// Template → sheet layout: physical columns, the table header's merged cells, the row-header tree.
import { compileCondition, type Predicate } from './condition.js';
import type { CeilNode, CellType, RowNode, Template } from './schema.js';

export interface CellLook {
  color?: string | undefined;
  bold?: boolean | undefined;
  italic?: boolean | undefined;
  bgColor?: string | undefined;
}

export interface DataColumn extends CellLook {
  /** The data key; null for a row-header column. */
  key: string | null;
  /** For row-header columns: which level of the row tree this column shows. */
  rowLevel?: number;
  title: string;
  type?: CellType | undefined;
  format?: string | undefined;
  width?: number | undefined;
  align?: 'left' | 'center' | 'right' | undefined;
  valign?: 'top' | 'middle' | 'bottom' | undefined;
  /** First match wins; its look overrides the column's. */
  conditions: { test: Predicate; look: CellLook }[];
}

export interface HeaderCell extends CellLook {
  row: number;
  col: number;
  rows: number;
  cols: number;
  title: string;
}

export interface RowTitle extends CellLook {
  /** Identity of the row-tree node (depth-first number), to know when a merge ends. */
  id: number;
  level: number;
  title: string;
}

export interface RowLeaf {
  name: string | undefined;
  /** Root first; the leaf's own title last. */
  path: RowTitle[];
}

export interface SheetLayout {
  columns: DataColumn[];
  headerRows: number;
  headerCells: HeaderCell[];
  /** Row-tree depth (row-header columns); 0 for a two-dimensional table. */
  rowLevels: number;
  rowLeaves: RowLeaf[];
  /** Data row height from the leaves' `height`, in points. */
  rowHeight?: number | undefined;
}

const ROW_HEADER_NAMES = new Set(['__row__', '_row_header']);
const isIgnored = (n: CeilNode) => !n.children?.length && ['', '_'].includes(n.name?.trim() ?? '');
const titleOf = (n: { name?: string | undefined; title?: string | undefined }) => n.title ?? n.name ?? '';
const look = (n: { color?: string | undefined; bold?: boolean | undefined; bg_color?: string | undefined }): CellLook => ({
  color: n.color,
  bold: n.bold,
  bgColor: n.bg_color,
});

/** Drops unmapped leaves, and groups left without leaves. */
function prune(nodes: CeilNode[], hasRows: boolean): CeilNode[] {
  const out: CeilNode[] = [];
  for (const n of nodes) {
    if (n.children?.length) {
      const children = prune(n.children, hasRows);
      if (children.length) out.push({ ...n, children });
    } else if (!isIgnored(n) && (hasRows || !ROW_HEADER_NAMES.has(n.name ?? ''))) {
      out.push(n);
    }
  }
  return out;
}

function hasRowHeaderLeaf(nodes: CeilNode[]): boolean {
  return nodes.some((n) => (n.children?.length ? hasRowHeaderLeaf(n.children) : ROW_HEADER_NAMES.has(n.name ?? '')));
}

const depthOf = (nodes: CeilNode[]): number => nodes.reduce((d, n) => Math.max(d, 1 + (n.children?.length ? depthOf(n.children) : 0)), 0);

function rowLeavesOf(nodes: RowNode[]): { leaves: RowLeaf[]; levels: number } {
  const leaves: RowLeaf[] = [];
  let id = 0;
  const walk = (list: RowNode[], path: RowTitle[]) => {
    for (const n of list) {
      const here = [...path, { id: id++, level: path.length, title: titleOf(n), ...look(n) }];
      if (n.children?.length) walk(n.children, here);
      else leaves.push({ name: n.name, path: here });
    }
  };
  walk(nodes, []);
  return { leaves, levels: leaves.reduce((d, l) => Math.max(d, l.path.length), 0) };
}

function dataColumn(n: CeilNode): DataColumn {
  return {
    key: n.name ?? null,
    title: titleOf(n),
    type: n.type,
    format: n.format,
    width: n.width,
    align: n.align,
    valign: n['v-align'],
    ...look(n),
    conditions: (n.condition_style ?? []).map((c) => ({
      test: compileCondition(c.condition),
      look: { color: c.color, bold: c.bold, italic: c.italic, bgColor: c.bg_color },
    })),
  };
}

/** Builds the layout; with no template, `fallback` (the first row's keys) makes a flat header. */
export function buildLayout(template: Template | null, fallback: { key: string; title: string }[]): SheetLayout {
  const ceilIn: CeilNode[] = template ? template.ceil : fallback.map((c) => ({ name: c.key, title: c.title }));
  const rows = template?.row?.length ? rowLeavesOf(template.row) : { leaves: [], levels: 0 };
  let ceil = prune(ceilIn, rows.levels > 0);
  if (rows.levels > 0 && !hasRowHeaderLeaf(ceil)) ceil = [{ name: '__row__', title: '' }, ...ceil];
  const headerRows = Math.max(1, depthOf(ceil));

  const columns: DataColumn[] = [];
  const headerCells: HeaderCell[] = [];
  let rowHeight: number | undefined;
  const place = (nodes: CeilNode[], depth: number) => {
    for (const n of nodes) {
      const col = columns.length;
      if (n.children?.length) {
        place(n.children, depth + 1);
        headerCells.push({ row: depth, col, rows: 1, cols: columns.length - col, title: titleOf(n), ...look(n) });
        continue;
      }
      if (ROW_HEADER_NAMES.has(n.name ?? '')) {
        for (let level = 0; level < rows.levels; level++) columns.push({ key: null, rowLevel: level, title: titleOf(n), width: n.width, conditions: [] });
      } else {
        columns.push(dataColumn(n));
        if (n.height) rowHeight = Math.max(rowHeight ?? 0, n.height);
      }
      // A leaf's header cell reaches down to the last header row.
      headerCells.push({ row: depth, col, rows: headerRows - depth, cols: columns.length - col, title: titleOf(n) });
    }
  };
  place(ceil, 0);
  headerCells.sort((a, b) => a.row - b.row || a.col - b.col);
  return { columns, headerRows, headerCells, rowLevels: rows.levels, rowLeaves: rows.leaves, rowHeight };
}

/** The width of title, summary, header and footer areas: the column count, at most 20. */
export const areaWidth = (layout: SheetLayout) => Math.max(1, Math.min(20, layout.columns.length));
