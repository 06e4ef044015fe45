// The export workflow's one input and one output (workflows/export.ts), apart so the steps that end
// a run (workflows/export-end.ts) and the sync export share them without an import cycle.
import type { ExportType } from '../model/task.js';
import type { RetrySettings } from './profiles.js';

export interface ExportInput {
  taskId: string;
  type: ExportType;
  retry: RetrySettings;
  /** tasks.runs of this run (a retry is run 2, …): names the callback's webhook-id. */
  run: number;
  /** Whether the task has a callback URL to notify when it ends. */
  callback: boolean;
  /** How many addresses of notify_email to mail when it ends; absent: none. */
  emails?: number;
  /** FETCH_HEARTBEAT_TIMEOUT_MS. */
  heartbeatTimeoutMs: number;
  /** A paused export resumed: its pages staged so far are kept, the rest fetched. */
  resume?: boolean;
  /** The task names a destination: its files are delivered there before it succeeds. */
  destination?: boolean;
  /**
   * The deployment's task queue, set on a sync run (which is on the sync queue, model/task-queues.ts):
   * its callback and e-mail workflows, and an export that outgrew the sync limit, run there. Absent:
   * the run's own queue, as before sync runs had a queue of their own.
   */
  exportQueue?: string;
}

export interface ExportOutput {
  /**
   * A failed task's run ends Failed (its failure type the task's error code); `failed` is returned
   * only when the task was cancelled as it failed. `queued`: a sync export over the sync limit,
   * back in its project's queue (workflows/sync-export.ts).
   */
  status: 'succeeded' | 'failed' | 'skipped' | 'cancelled' | 'paused' | 'queued';
  errorCode?: string;
}
