// What masking a sheet's pages needs (domain/formats/mask/rows.ts): the probe's plan, how the
// type's pages hold rows, and the project's hash key when the plan hashes.
import type { ExportType } from '../../model/task.js';
import { templateColumns } from '../formats/columns.js';
import { templateOf } from '../formats/excel-layout.js';
import type { MaskJob } from '../formats/mask/rows.js';
import type { SourceMeta } from './meta.js';

/**
 * The job of a sheet's pages, or undefined when nothing of it is masked. `timeZone`: the task's
 * (CSV and Excel only move date-times to it; the masker does so before masking).
 */
export function maskJob(type: ExportType, meta: SourceMeta, key: string | undefined, timeZone?: string): MaskJob | undefined {
  if (!meta.masks || Object.keys(meta.masks).length === 0) return undefined;
  const shape = type !== 'excel' ? 'flat' : templateOf(meta.template)?.row?.length ? 'excel-groups' : 'excel';
  const zoned = timeZone && (type === 'csv' || type === 'excel') ? { timeZone, textColumns: textColumns(meta.template) } : {};
  return { plan: meta.masks, shape, columns: meta.columns.map((c) => c.key), key, ...zoned };
}

/** The keys the template (not the masks, which make every masked column text) types `string`. */
function textColumns(template: unknown): string[] {
  return (templateColumns(template) ?? []).filter((c) => c.type === 'string').map((c) => c.key);
}
