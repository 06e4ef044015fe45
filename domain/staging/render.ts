// Which renderer makes a task's files, by its type: what the render activity and a preview both call.
import type { RenderedFile } from '../../model/activities.js';
import { type RenderDeps, type RenderJob, renderText } from './render-csv.js';

// The xlsx and Parquet renderers (their writers, htmlparser2, hyparquet) are loaded with the first
// file of their type: an idle process holds neither (docs/adr/0055-idle-memory-of-npm-start.md).
const renderXlsx: typeof import('./render-xlsx.js').renderXlsx = async (deps, job) => (await import('./render-xlsx.js')).renderXlsx(deps, job);
const renderParquet: typeof import('./render-parquet.js').renderParquet = async (deps, job) => (await import('./render-parquet.js')).renderParquet(deps, job);

/** A task's files: xlsx, Parquet, or text (CSV and JSON Lines). */
export function renderTask(deps: RenderDeps, job: RenderJob): Promise<RenderedFile[]> {
  const render = job.task.type === 'excel' ? renderXlsx : job.task.type === 'parquet' ? renderParquet : renderText;
  return render(deps, job);
}
