// What the probe learned about the source, kept in the store beside the pages (never in workflow
// history): the total, the columns, and the layout the first answer brought.
import { DomainError } from '../errors.js';
import type { TaskRow } from '../../db/schema.js';
import type { Storage } from '../../platform/storage/index.js';
import type { SheetLayout } from '../../model/task-options.js';
import type { MaskPlan } from '../../model/mask.js';
import { rowColumns, templateColumns, type Column } from '../formats/columns.js';
import { maskPlan } from '../formats/mask/plan.js';
import { sheetCharts } from '../formats/charts.js';
import { checkExcelLayout, templateOf } from '../formats/excel-layout.js';
import { buildLayout } from '../formats/template/layout.js';
import { checkPartsAhead, type SplitLimits } from '../formats/split.js';
import type { SourcePage } from '../source/client.js';
import { keys } from './keys.js';

export interface SourceMeta {
  total: number;
  pageSize: number;
  columns: Column[];
  template?: unknown;
  header?: unknown;
  footer?: unknown;
  /** Source key → mask (the template's, the project's over them); absent or empty: nothing masked. */
  masks?: MaskPlan;
  /**
   * The id of the project's hash key at the probe (domain/projects/mask-key.ts), when the plan
   * hashes: every lane of the export hashes with that key or fails with source_changed.
   */
  maskKeyId?: string;
}

/** What the probe's check needs of a task (and of one of its sheets: that sheet's options). */
export interface ProbedSheet {
  type: TaskRow['type'];
  pageSize: number;
  options: SheetLayout;
  /** The project's mask_columns, which win over the template's masks. */
  masks?: MaskPlan | undefined;
}

/** The meta of the probe's answer (page_size=1), or the failure that ends the task before any fetch. */
export function metaFromProbe(first: SourcePage, task: ProbedSheet, maxRows: number): SourceMeta {
  if (first.total > maxRows) {
    throw new DomainError('export_too_large', `the source reports ${first.total} rows; an export may have at most ${maxRows} (narrow the filters in source_url)`);
  }
  const template = first.template ?? task.options.template;
  // A bad template or header fails the task now, before any page is fetched.
  if (task.type === 'excel') checkExcelLayout(template, first, task.options);
  const masks = maskPlan(template, task.masks);
  // A masked value is text: Parquet types its column as text, whatever the template's type says.
  const columns = (templateColumns(template) ?? rowColumns(first.data[0])).map((c) => (Object.hasOwn(masks, c.key) ? { ...c, type: 'string' } : c));
  if (first.total > 0 && columns.length === 0) {
    throw new DomainError('source_bad_response', 'the source reported rows but its first answer has neither a template nor a row to take columns from');
  }
  // Charts name the columns the source's answer decides (its template or its rows' keys): checked here, before any fetch.
  if (task.type === 'excel' && task.options.charts !== undefined && first.total > 0) sheetCharts(task.options.charts, buildLayout(templateOf(template), columns));
  return { total: first.total, pageSize: task.pageSize, columns, template, header: first.header, footer: first.footer, ...(Object.keys(masks).length ? { masks } : {}) };
}

/**
 * The data rows a sheet's probe promises (what bounds its parts from below): with row headers (a
 * template's `row`) an Excel sheet's total counts groups, which may hold any number of rows, so none.
 */
export function promisedRows(type: TaskRow['type'], meta: SourceMeta): number {
  return type === 'excel' && templateOf(meta.template)?.row?.length ? 0 : meta.total;
}

/**
 * What an export refuses once its sheets are probed, before any page is fetched (the export's probe
 * and its preview alike): their rows together over MAX_EXPORT_ROWS, or more files than MAX_PARTS at
 * the task's split limits. The sheets' total.
 */
export function checkProbed(type: TaskRow['type'], metas: SourceMeta[], split: SplitLimits, maxExportRows: number): number {
  const total = metas.reduce((n, m) => n + m.total, 0);
  if (total > maxExportRows) {
    throw new DomainError('export_too_large', `the sheets' sources report ${total} rows together; an export may have at most ${maxExportRows} (narrow the filters in their source_url)`);
  }
  checkPartsAhead(metas.reduce((n, m) => n + promisedRows(type, m), 0), split);
  return total;
}

export async function readMeta(storage: Storage, taskId: string, sheet = 0): Promise<SourceMeta> {
  return JSON.parse((await storage.getBuffer(keys.meta(taskId, sheet))).toString('utf8')) as SourceMeta;
}

export async function writeMeta(storage: Storage, taskId: string, meta: SourceMeta, sheet = 0): Promise<void> {
  await storage.putBuffer(keys.meta(taskId, sheet), Buffer.from(JSON.stringify(meta)));
}
