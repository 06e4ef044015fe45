// What an operator sees of an export in the Temporal UI (docs/operations.md#finding-exports-in-the-temporal-ui): the DcStatus and DcRows
// search attributes, kept current as the run moves, and the "current details" text with the stage
// and the pages fetched so far (returned by the SDK's metadata query, so it costs no history); and
// the time spent in each stage, which the run's last activity turns into dc_stage_duration_seconds.
import { setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { DC_PROJECT_ID, DC_ROWS, DC_STATUS, type DcStatus } from '../model/search-attributes.js';
import type { TaskStage } from '../model/task.js';

export class Visibility {
  private readonly upserts: boolean;
  private status: DcStatus = 'queued';
  private stage: TaskStage | undefined;
  private rows: number | undefined;
  private pages = { done: 0, total: 0 };
  private spent: Partial<Record<TaskStage, number>> = {};
  private since = Date.now();

  constructor() {
    // Only a run started with our attributes (domain/tasks/admission/run.ts) upserts them: then the server
    // knows them. Runs started otherwise (the workflow tests) keep the details text only.
    this.upserts = workflowInfo().typedSearchAttributes.get(DC_PROJECT_ID) !== undefined;
    this.show();
  }

  /** A new status; unchanged ones cost no command. */
  setStatus(status: DcStatus): void {
    if (status === this.status) return;
    this.status = status;
    if (status !== 'running') this.enter(undefined);
    if (this.upserts) upsertSearchAttributes([{ key: DC_STATUS, value: status }]);
    this.show();
  }

  setStage(stage: TaskStage): void {
    this.enter(stage);
    this.show();
  }

  /** Milliseconds in each stage so far, the current one up to now (workflow time: deterministic). */
  timings(): Partial<Record<TaskStage, number>> {
    const out = { ...this.spent };
    if (this.stage) out[this.stage] = (out[this.stage] ?? 0) + (Date.now() - this.since);
    return out;
  }

  private enter(stage: TaskStage | undefined): void {
    if (stage === this.stage) return;
    const now = Date.now();
    if (this.stage) this.spent[this.stage] = (this.spent[this.stage] ?? 0) + (now - this.since);
    this.stage = stage;
    this.since = now;
  }

  /** The export's size, once the probe (or a resumed run's staged metadata) knows it. */
  planned(total: number, pagesTotal: number, pagesDone: number): void {
    this.pages = { done: pagesDone, total: pagesTotal };
    this.enter('fetching');
    if (total !== this.rows && this.upserts) upsertSearchAttributes([{ key: DC_ROWS, value: total }]);
    this.rows = total;
    this.show();
  }

  fetched(pages: number): void {
    this.pages.done = Math.min(this.pages.total, this.pages.done + pages);
    this.show();
  }

  private show(): void {
    const parts: string[] = [this.status];
    if (this.stage) parts.push(this.stage);
    if (this.stage === 'fetching' && this.pages.total > 0) {
      const percent = Math.floor((1000 * this.pages.done) / this.pages.total) / 10;
      parts.push(`${this.pages.done} of ${this.pages.total} pages (${percent}%)`);
    }
    if (this.rows !== undefined) parts.push(`${this.rows} rows`);
    setCurrentDetails(`**${parts[0]}**${parts.length > 1 ? ` · ${parts.slice(1).join(' · ')}` : ''}`);
  }
}
