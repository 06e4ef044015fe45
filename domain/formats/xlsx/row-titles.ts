// Row titles of a three-dimensional table: each row-tree node's title sits in its level's column,
// merged down over all rows of its groups (and, for a shallow leaf, across the deeper levels).
// Only the currently open nodes are held, so memory does not grow with the row count.
import type { RowLeaf, RowTitle } from '../template/layout.js';
import type { Looks } from './looks.js';
import { colName, esc, rangeRef } from './xml.js';

interface Open {
  node: RowTitle;
  start: number;
  lastCol: number;
}

/** Assigns each data group its row-tree leaf, across parts: by name when named, else the next one. */
export class LeafCursor {
  private readonly byName = new Map<string, number>();
  private next = 0;

  constructor(private readonly leaves: RowLeaf[]) {
    leaves.forEach((l, i) => {
      if (l.name && !this.byName.has(l.name)) this.byName.set(l.name, i);
    });
  }

  /** Groups past the last leaf get none: their rows are shown without a row title. */
  leafFor(name: string | undefined): RowLeaf | null {
    const i = name !== undefined && this.byName.has(name) ? this.byName.get(name)! : this.next;
    this.next = i + 1;
    return this.leaves[i] ?? null;
  }
}

export class RowTitles {
  private readonly open: (Open | undefined)[] = [];

  constructor(
    private readonly levels: number,
    /** Physical column of level 0; the levels' columns are contiguous. */
    private readonly firstCol: number,
    private readonly looks: Looks,
    private readonly onMerge: (ref: string) => void,
  ) {}

  /** The row-title cells of one data row, opening and closing merges as the path changes. */
  cells(leaf: RowLeaf | null, row: number): string {
    let xml = '';
    const r = row + 1;
    for (let level = 0; level < this.levels; level++) {
      const col = this.firstCol + level;
      const node = leaf ? leaf.path[Math.min(level, leaf.path.length - 1)]! : undefined;
      const o = this.open[level];
      if (!node) {
        if (o) this.closeFrom(level, row - 1);
        xml += `<c r="${colName(col)}${r}" s="${this.looks.rowTitle}"/>`;
        continue;
      }
      if (o?.node.id !== node.id) {
        this.closeFrom(level, row - 1);
        const isLeaf = node === leaf!.path[leaf!.path.length - 1];
        this.open[level] = { node, start: row, lastCol: isLeaf ? this.firstCol + this.levels - 1 : col };
      }
      const s = this.looks.rowTitleCell(node);
      const starts = this.open[level]!.start === row && node.level === level;
      xml += starts ? `<c r="${colName(col)}${r}" s="${s}" t="inlineStr"><is><t>${esc(node.title)}</t></is></c>` : `<c r="${colName(col)}${r}" s="${s}"/>`;
    }
    return xml;
  }

  /** Ends every open merge at `lastRow` (a group change, or the end of a part). */
  closeFrom(level: number, lastRow: number): void {
    for (let l = level; l < this.levels; l++) {
      const o = this.open[l];
      if (!o) continue;
      this.open[l] = undefined;
      const firstCol = this.firstCol + l;
      if (o.node.level === l && (lastRow > o.start || o.lastCol > firstCol)) this.onMerge(rangeRef(o.start, firstCol, lastRow, o.lastCol));
    }
  }
}
