// Excel: the staged .ndjson pieces, in page order, streamed into one workbook (or several parts and
// a zip). A retried attempt renders again from the staged pages; nothing of a failed one is kept.
import { Context } from '@temporalio/activity';
import { eq } from 'drizzle-orm';
import { projects, type TaskRow } from '../db/schema.js';
import { requireTask } from '../db/tasks.js';
import { pageCount } from '../lib/plan.js';
import { resolveSplit } from '../lib/split.js';
import type { Storage } from '../lib/storage/index.js';
import { type Area, parseArea, storedArea } from '../lib/template/areas.js';
import { buildLayout } from '../lib/template/layout.js';
import { describeIssues, parseTemplate, type Template } from '../lib/template/template.js';
import { sheetName, writeWorkbook } from '../lib/xlsx/workbook.js';
import { type ActivityDeps, keys, type SourceMeta } from './deps.js';
import { permanent } from './errors.js';
import { orderedPieces } from './merge.js';
import { storeParts } from './parts.js';
import type { RenderedFile } from './render-csv.js';
import { tempPath } from './tmp.js';

/** The staged rows, a page's worth at a time: memory holds one piece's lines and one page of rows. */
async function* stagedPages(storage: Storage, taskId: string, meta: SourceMeta, signal: AbortSignal): AsyncGenerator<unknown[]> {
  for (const piece of await orderedPieces(storage, taskId, pageCount(meta.total, meta.pageSize))) {
    if (signal.aborted) throw signal.reason;
    const lines = (await storage.getBuffer(piece.key)).toString('utf8').split('\n');
    let rows: unknown[] = [];
    for (const line of lines) {
      if (!line) continue;
      try {
        rows.push(JSON.parse(line));
      } catch {
        throw permanent('render_failed', `staged piece ${piece.key.split('/').pop()} is not valid JSON lines`);
      }
      if (rows.length === meta.pageSize) {
        yield rows;
        rows = [];
      }
    }
    if (rows.length > 0) yield rows;
  }
}

/** The template (the source's first answer's, else the task's), or a template_invalid failure. */
export function templateOf(raw: unknown): Template | null {
  if (raw === undefined || raw === null) return null;
  const t = parseTemplate(raw);
  if (!t.ok) throw permanent('template_invalid', `the template is not valid: ${describeIssues(t.issues)}`);
  return t.template;
}

/** A header or footer area: the source's first answer's as sent, else the task's as stored. */
export function areaOf(which: 'header' | 'footer', fromSource: unknown, fromTask: unknown): Area | undefined {
  if (fromSource !== undefined && fromSource !== null) {
    const a = parseArea(fromSource);
    if (!a.ok) throw permanent('source_bad_response', `the source's ${which} is not valid: ${a.message}`);
    return a.area;
  }
  if (fromTask === undefined || fromTask === null) return undefined;
  const stored = storedArea.safeParse(fromTask);
  if (!stored.success) throw permanent('template_invalid', `the task's ${which} is not valid`);
  return stored.data;
}

/** What the probe checks for an Excel task: template, header and footer all usable. */
export function checkExcelLayout(template: unknown, first: { header?: unknown; footer?: unknown }, options: Record<string, unknown>): void {
  templateOf(template);
  areaOf('header', first.header, options.header);
  areaOf('footer', first.footer, options.footer);
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined);

export function createRenderXlsxActivities({ db, storage, config }: ActivityDeps) {
  async function settingsOf(task: TaskRow): Promise<Record<string, unknown>> {
    const [p] = await db.select({ settings: projects.settings }).from(projects).where(eq(projects.id, task.projectId));
    return p?.settings ?? {};
  }

  return {
    async renderXlsx({ taskId }: { taskId: string }): Promise<{ outputs: RenderedFile[] }> {
      const ctx = Context.current();
      const task = await requireTask(db, taskId);
      const meta = JSON.parse((await storage.getBuffer(keys.meta(taskId))).toString('utf8')) as SourceMeta;
      const layout = buildLayout(templateOf(meta.template), meta.columns);
      const limits = resolveSplit('excel', task.options, await settingsOf(task));
      const title = text(task.options.title);
      const parts = await writeWorkbook({
        layout,
        title,
        summary: text(task.options.summary),
        header: areaOf('header', meta.header, task.options.header),
        footer: areaOf('footer', meta.footer, task.options.footer),
        pages: stagedPages(storage, taskId, meta, ctx.cancellationSignal),
        maxRows: limits.maxRows,
        maxBytes: limits.maxBytes,
        pathFor: (n) => tempPath(config.DATA_DIR, taskId, `part-${n}.xlsx`),
        mtime: task.createdAt,
        sheetName: sheetName(title),
        onPage: (rows) => ctx.heartbeat({ rows }),
      });
      const outputs = await storeParts({ storage, dataDir: config.DATA_DIR, taskId, fileName: task.fileName, ext: 'xlsx', parts, mtime: task.createdAt });
      return { outputs };
    },
  };
}
