// Which renderer makes a task's files, by its type: what the render activity and a preview both call.
import type { RenderedFile } from '../../model/activities.js';
import { type RenderDeps, type RenderJob, renderText } from './render-csv.js';
import { renderParquet } from './render-parquet.js';
import { renderXlsx } from './render-xlsx.js';

/** A task's files: xlsx, Parquet, or text (CSV and JSON Lines). */
export function renderTask(deps: RenderDeps, job: RenderJob): Promise<RenderedFile[]> {
  const render = job.task.type === 'excel' ? renderXlsx : job.task.type === 'parquet' ? renderParquet : renderText;
  return render(deps, job);
}
