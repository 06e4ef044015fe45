// POST /v1/tasks/preview (docs/api.md#post-v1taskspreview): the first rows of an export, rendered exactly as the export
// would render them. The pages it needs (the probe, then the first pages at the task's page_size,
// as the export fetches them) are staged in a store that lives only in memory, and the same
// renderers as the export's turn them into the file; no task row, no stored object, no workflow.
import type { ProjectRow, TaskRow } from '../../db/schema.js';
import { pageCount } from '../../model/plan.js';
import type { Config } from '../../platform/config.js';
import { newId } from '../../platform/crypto.js';
import { MemoryStorage } from '../../platform/storage/memory.js';
import { DomainError } from '../errors.js';
import { type MaskPlan, plansHash } from '../../model/mask.js';
import { pageMasker } from '../formats/mask/rows.js';
import { maskKeyOf } from '../projects/mask-key.js';
import { csvStyle } from '../formats/csv/encode.js';
import { settingsOf } from '../projects/projects.js';
import { maskJob } from '../staging/masks.js';
import { keys } from '../staging/keys.js';
import { resolveSplit } from '../formats/split.js';
import { checkProbed, metaFromProbe, type SourceMeta, writeMeta } from '../staging/meta.js';
import { encodeStaged, stagedExt } from '../staging/pieces.js';
import { renderTask } from '../staging/render.js';
import { type SheetSpec, sheetLabel, taskSheets } from '../staging/sheets.js';
import { errorKind, type SourceClientOptions } from '../source/client.js';
import { sourceLimits, type SourceLimits } from '../source/limiter.js';
import { checkPage, type PoliteSource } from '../source/polite.js';
import type { Db } from '../../db/client.js';
import { type RateState, takeSubmission } from './rate.js';
import { noRunYet } from './status.js';
import { checkHosts, newTask, type SubmitInput } from './submit.js';

/** The most rows a preview renders (per sheet), and how many when `rows` is not given. */
export const PREVIEW_MAX_ROWS = 200;
export const PREVIEW_DEFAULT_ROWS = 20;

export interface PreviewDeps {
  db: Db;
  config: Config;
  source: PoliteSource;
  /** The server's sealing keys: they open the project's hash-mask key (domain/projects/mask-key.ts). */
  sealingKeys: readonly string[];
}

export interface Preview {
  name: string;
  body: Buffer;
  /** Data rows in the file (all sheets). */
  rows: number;
  /** Rows the source reports for the whole export (all sheets). */
  sourceTotal: number;
  rate: RateState;
}

/** The row an export of this request would get; never stored. */
function previewRow(project: ProjectRow, input: SubmitInput): TaskRow {
  const now = new Date();
  return {
    ...newTask(project, { ...input, file_name: input.file_name ?? 'preview' }, 'preview', undefined),
    id: newId('pre'),
    ...noRunYet(),
    status: 'running',
    stage: 'probing',
    runs: 1,
    admittedAt: null,
    startClaimedUntil: null,
    startedAt: now,
    updatedAt: now,
  };
}

interface SheetJob {
  task: TaskRow;
  spec: SheetSpec;
  sheet: number;
  rows: number;
  limits: SourceLimits;
  masks: MaskPlan;
  store: MemoryStorage;
  signal: AbortSignal;
  budget: Pick<SourceClientOptions, 'maxBytes' | 'onBytes'>;
}

/**
 * A preview's pages live in the API process: each answer may be at most PREVIEW_MAX_PAGE_BYTES (a
 * preview asks few rows, far below SOURCE_MAX_PAGE_BYTES), and every byte of every sheet's answers
 * counts against PREVIEW_MAX_BYTES as it arrives, so 20 sheets cannot hold 20 large pages at once.
 */
function previewBudget(config: Config): SheetJob['budget'] {
  let left = config.PREVIEW_MAX_BYTES;
  return {
    maxBytes: config.PREVIEW_MAX_PAGE_BYTES,
    onBytes(bytes) {
      left -= bytes;
      if (left < 0) {
        throw new DomainError('preview_too_large', `the preview's source answers exceed ${config.PREVIEW_MAX_BYTES} bytes together (PREVIEW_MAX_BYTES); ask fewer rows or sheets, or export`);
      }
    },
  };
}

/** A page over the preview's own limit is the preview's refusal, not the source's fault (an export would take it). */
function pageTooLarge(err: unknown, config: Config): unknown {
  if (!(err instanceof DomainError) || errorKind(err) !== 'too_large') return err;
  return new DomainError('preview_too_large', `${err.message} (PREVIEW_MAX_PAGE_BYTES, a preview's limit; an export takes pages up to ${config.SOURCE_MAX_PAGE_BYTES} bytes)`);
}

/**
 * Probes one sheet's source and stages the pages holding its first `rows` rows. Excel keeps those
 * pages whole, because the export fits its column widths to the first page; other types keep the rows.
 */
async function stageSheet(deps: PreviewDeps, { task, spec, sheet, rows, limits, masks, store, signal, budget }: SheetJob): Promise<SourceMeta> {
  const get = (page: number, pageSize: number) =>
    deps.source.get({ sourceUrl: spec.sourceUrl, projectId: task.projectId, limits, page, pageSize, signal, client: budget }).catch((err: unknown) => {
      throw pageTooLarge(err, deps.config);
    });
  const meta = metaFromProbe(await get(0, 1), { type: task.type, pageSize: task.pageSize, options: spec.options, masks }, deps.config.MAX_EXPORT_ROWS);
  // Masked as the export masks: before the rows are staged, even in memory.
  const mask = maskJob(task.type, meta, plansHash(meta.masks) ? await maskKeyOf(deps.db, task.projectId, deps.sealingKeys) : undefined, task.options.time_zone);
  const masked = mask ? pageMasker(mask) : (page: unknown[]) => page;
  const wanted = Math.min(rows, meta.total);
  const data: unknown[] = [];
  for (let page = 0; page < pageCount(wanted, task.pageSize); page++) {
    const answer = await get(page, task.pageSize);
    checkPage(answer.total, answer.data.length, page, meta);
    data.push(...masked(answer.data));
  }
  const kept = task.type === 'excel' ? data : data.slice(0, wanted);
  const ext = stagedExt(task.type);
  await writeMeta(store, task.id, { ...meta, total: kept.length }, sheet);
  if (kept.length) await store.putBuffer(keys.piece(task.id, 0, pageCount(kept.length, task.pageSize), ext, sheet), encodeStaged(ext, kept, meta.columns, csvStyle(task.options)));
  return meta;
}

/** What the export would fail with is the answer: the same code, the same sentence, its sheet named. */
function inSheet(err: unknown, label: string): unknown {
  return err instanceof DomainError ? err.labelled(label) : err;
}

export async function previewTask(deps: PreviewDeps, project: ProjectRow, input: SubmitInput & { rows: number }, signal: AbortSignal): Promise<Preview> {
  checkHosts(project, input);
  // A preview costs the source what a small export does: it takes a submission from the quota.
  const rate = await takeSubmission(deps.db, project);
  const task = previewRow(project, input);
  const store = new MemoryStorage();
  const settings = settingsOf(project);
  const sheets = taskSheets(task);
  const limits = sourceLimits(settings);
  const budget = previewBudget(deps.config);
  // Over budget, every sheet still fetching stops at once: the preview is refused anyway.
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  let first: { err: unknown; sheet: number } | undefined;
  const staged = await Promise.allSettled(
    sheets.map((spec, sheet) =>
      stageSheet(deps, { task, spec, sheet, rows: input.rows, limits, masks: settings.mask_columns, store, signal: both, budget }).catch((err: unknown) => {
        // The first failure is the answer, not a sheet that stopped because of it.
        if (!first) {
          first = { err, sheet };
          stop.abort(err);
        }
        throw err;
      }),
    ),
  );
  if (first) throw inSheet(first.err, sheetLabel(sheets, first.sheet));
  const metas = staged.map((s) => (s as PromiseFulfilledResult<SourceMeta>).value);
  // What the export's probe refuses (export_too_large, too_many_parts), its preview does, in the same words.
  const sourceTotal = checkProbed(task.type, metas, resolveSplit(task.type, task.options, settings, deps.config.MAX_PARTS), deps.config.MAX_EXPORT_ROWS);
  const outputs = await renderTask({ storage: store, dataDir: deps.config.DATA_DIR, maxParts: deps.config.MAX_PARTS }, { task, settings, signal, onProgress: () => {}, rowsPerSheet: input.rows });
  // Split by a tiny max_file_rows, the export would be parts and a zip; the zip is what it serves.
  const file = outputs.length === 1 ? outputs[0]! : outputs.find((o) => o.name.endsWith('.zip'))!;
  return { name: file.name, body: await store.getBuffer(file.key), rows: file.rows, sourceTotal, rate };
}
