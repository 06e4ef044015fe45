// Pure arithmetic of the fetch plan, shared by the workflow (deterministic) and the activities.
// Keep this file free of I/O and Node built-ins: the workflow bundle imports it.

/** The design: ≤ 400 pages → one lane; more → ceil(total / (page_size × 100)) lanes, at most 5. */
export const LINEAR_MAX_PAGES = 400;
export const MAX_LANES = 5;
/** Pages one fetch activity of the sync export handles (a local activity, bounded to a minute). */
export const PAGES_PER_ACTIVITY = 100;
/**
 * …and of the export: a retried activity resumes after its last stored piece (heartbeat details), so a
 * longer chunk redoes no more after a crash; it costs fewer activity round trips per lane (a lane of
 * up to 200 pages is one activity) and fewer history events. The Temporal UI's current details
 * still move every 200 pages of a lane.
 */
export const PAGES_PER_CHUNK = 200;

export interface Lane {
  lane: number;
  /** The sheet whose pages the lane fetches (a workbook of several sheets); absent for sheet 0. */
  sheet?: number;
  fromPage: number;
  /** Exclusive. */
  toPage: number;
}

export const pageCount = (total: number, pageSize: number): number => Math.ceil(total / pageSize);

export function planLanes(total: number, pageSize: number, maxLanes = MAX_LANES): Lane[] {
  const pages = pageCount(total, pageSize);
  if (pages === 0) return [];
  const lanes = pages <= LINEAR_MAX_PAGES ? 1 : Math.min(maxLanes, Math.ceil(total / (pageSize * 100)));
  const per = Math.ceil(pages / lanes);
  const out: Lane[] = [];
  for (let i = 0, from = 0; from < pages; i++, from += per) {
    out.push({ lane: i, fromPage: from, toPage: Math.min(pages, from + per) });
  }
  return out;
}

/**
 * The lanes of a workbook of several sheets: each sheet planned as an export of its own, the lanes
 * numbered across all sheets (the number keys the lane's progress on the task).
 */
export function planSheetLanes(sheets: Array<{ total: number }>, pageSize: number): Lane[] {
  const out: Lane[] = [];
  sheets.forEach((s, sheet) => {
    for (const l of planLanes(s.total, pageSize)) out.push({ ...l, lane: out.length, ...(sheet > 0 ? { sheet } : {}) });
  });
  return out;
}

/** Consecutive [from, to) page ranges of at most `size` pages covering a lane. */
export function chunkRange(fromPage: number, toPage: number, size = PAGES_PER_ACTIVITY): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let p = fromPage; p < toPage; p += size) out.push([p, Math.min(toPage, p + size)]);
  return out;
}

/** Rows the source must return for a page, given the probed total. */
export function expectedRows(page: number, total: number, pageSize: number): number {
  return Math.max(0, Math.min(pageSize, total - page * pageSize));
}

export function rowsInPages(fromPage: number, toPage: number, total: number, pageSize: number): number {
  return Math.max(0, Math.min(total, toPage * pageSize) - fromPage * pageSize);
}
