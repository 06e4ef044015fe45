// A page's rows masked before anything else sees them (docs/adr/0044-masked-columns.md): the first
// place a source value is read as a value, before staging, so no raw value of a masked column is
// in a staged piece, a file, a log line or a message. The job is plain data: it crosses to the
// page-encoding threads (domain/staging/page-encoder.ts).
import type { MaskPlan } from '../../../model/mask.js';
import { groupOf } from '../xlsx/group.js';
import { timeZone } from '../time-zone.js';
import { maskValue } from './text.js';

export interface MaskJob {
  plan: MaskPlan;
  /**
   * How a page's elements are rows: `flat` (CSV, JSON Lines, Parquet: objects read by key),
   * `excel` (an object by key, an array in column order), `excel-groups` (with row headers: each
   * element a group of such rows, as the workbook writer reads it).
   */
  shape: 'flat' | 'excel' | 'excel-groups';
  /** The data columns' keys in order: what an Excel row given as an array holds. */
  columns: string[];
  /** The project's hash key, hex; present when the plan has a `hash` mask. */
  key?: string | undefined;
  /**
   * A CSV or Excel task's time_zone: a masked zoned date-time is moved to the zone first, so a
   * mask keeps the digits the reader sees, not UTC's (docs/formats.md#time_zone).
   */
  timeZone?: string | undefined;
  /** Keys the template types `string`: their text is never moved to the zone. */
  textColumns?: string[] | undefined;
}

type Row = Record<string, unknown>;

/**
 * Replaces a value in place, keeping the key's position. Plain assignment: the key is an own data
 * property (checked first), which a set finds before any inherited accessor, `__proto__` included.
 */
function put(row: Row, k: string, v: unknown): void {
  row[k] = v;
}

/** The masker of a job: a function that masks one page's elements in place and returns them. */
export function pageMasker(job: MaskJob): (elements: unknown[]) => unknown[] {
  const key = job.key ? Buffer.from(job.key, 'hex') : undefined;
  const entries = Object.entries(job.plan);
  const zone = timeZone(job.timeZone);
  const text = new Set(job.textColumns);
  const zoned = (k: string, v: unknown) => (zone && !text.has(k) ? zone.shift(v) : v);
  const positional = job.columns.map((c) => (Object.hasOwn(job.plan, c) ? job.plan[c]! : null));
  const byKey = (row: Row) => {
    for (const [k, spec] of entries) if (Object.hasOwn(row, k)) put(row, k, maskValue(zoned(k, row[k]), spec, key));
  };
  const row = (r: unknown) => {
    if (r === null || typeof r !== 'object') return;
    if (job.shape !== 'flat' && Array.isArray(r)) {
      positional.forEach((spec, i) => {
        if (spec && i < r.length) r[i] = maskValue(zoned(job.columns[i]!, r[i]), spec, key);
      });
    } else byKey(r as Row);
  };
  return (elements) => {
    if (entries.length === 0) return elements;
    for (const el of elements) {
      if (job.shape === 'excel-groups') groupOf(el).rows.forEach(row);
      else row(el);
    }
    return elements;
  };
}
