// Starting a task's workflow run. Started by function reference, so the arguments are type-checked
// against the workflow's input. The run carries what operators search and read in the Temporal UI
// (docs/operations.md#finding-exports-in-the-temporal-ui): the Dc* search attributes, a one-line summary and a few lines of details.
import type { Client } from '@temporalio/client';
import type { Db } from '../../../db/client.js';
import type { ProjectRow, TaskRow } from '../../../db/schema.js';
import { DC_EXPORT_TYPE, DC_OPERATOR_ID, DC_PROJECT_ID, DC_ROWS, DC_STATUS } from '../../../model/search-attributes.js';
import type { Config } from '../../../platform/config.js';
import { markdownText } from '../../../platform/markdown.js';
import { metrics } from '../../../platform/metrics.js';
import { exportWorkflow, type ExportInput } from '../../../workflows/export.js';
import { syncExportWorkflow } from '../../../workflows/sync-export.js';
import { syncTaskQueue } from '../../../model/task-queues.js';
import { leafCount, parseTemplate } from '../../formats/template/template.js';
import { getProject, settingsOf } from '../../projects/projects.js';

/** What a run takes from its project: the name operators read, the settings its retries follow. */
export type RunProject = Pick<ProjectRow, 'name' | 'settings'>;

export interface RunDeps {
  db: Db;
  temporal: Client;
  config: Config;
}

/** How one run starts: the project the caller holds already, the client, which workflow. */
export interface StartHow {
  project?: RunProject | undefined;
  /**
   * A client sharing its NativeConnection with a worker of this process (the embedded start): the
   * server hands the run's first workflow task back in its answer to this very call and the local
   * worker runs it at once, with no task-queue round trip (docs/adr/0017-lean-sync-exports.md).
   */
  eager?: Client | undefined;
  /** The sync export's run (workflows/sync-export.ts) rather than the export workflow's. */
  sync?: boolean | undefined;
}

/**
 * Starts a run for an admitted task (a retry or a resume is a new run under the same id); whether
 * it started eagerly. The export workflow's start attaches to a run already there (two admitters, a
 * sweep after a crash); a sync run is started once, by its request.
 */
export async function startWorkflowRun(deps: RunDeps, task: TaskRow, how: StartHow = {}): Promise<boolean> {
  const known = await projectOf(deps, task, how.project);
  const input = exportInput(deps.config, task, known);
  const options = { ...runOptions(deps, task, known.name), ...(how.eager ? { requestEagerStart: true } : {}) };
  const client = how.eager ?? deps.temporal;
  // A sync run goes to the sync queue, served by the API processes (app/sync-worker.ts), and is
  // handed out first whatever the task's priority: its caller waits on the answer. An export that
  // outgrows the sync limit continues on the deployment's queue (workflows/sync-export.ts).
  const handle = how.sync
    ? await client.workflow.start(syncExportWorkflow, {
        ...options,
        taskQueue: syncTaskQueue(options.taskQueue),
        priority: { ...options.priority, priorityKey: 1 },
        args: [{ ...input, maxRows: deps.config.SYNC_MAX_ROWS, exportQueue: options.taskQueue }],
      })
    : await client.workflow.start(exportWorkflow, { ...options, args: [input], workflowIdConflictPolicy: 'USE_EXISTING' });
  metrics.runStarts.inc({ how: handle.eagerlyStarted ? 'eager' : 'task_queue' });
  return handle.eagerlyStarted;
}

/** The task's project as the run starts (a caller may hold it already: one read fewer on the hot path). */
async function projectOf(deps: RunDeps, task: TaskRow, project?: RunProject): Promise<RunProject> {
  return project ?? (await getProject(deps.db, task.projectId)) ?? { name: task.projectId, settings: {} };
}

/** How many recipients a task's end mails (its `notify_email`). */
export const emails = (task: TaskRow): number => task.options.notify_email?.length ?? 0;

/**
 * Source retries follow the project's settings as they are when the run starts (a retry or resume
 * is a new run, so it sees a change). SOURCE_RETRY_INITIAL_MS stays the first wait of a growing
 * backoff, and SOURCE_RETRY_MAX_ATTEMPTS the operator's ceiling on every project's attempts.
 */
function exportInput(config: Config, task: TaskRow, project: RunProject): ExportInput {
  const s = settingsOf(project);
  return {
    taskId: task.id,
    type: task.type,
    retry: {
      initialMs: config.SOURCE_RETRY_INITIAL_MS,
      maxAttempts: Math.min(s.source_retry_max_attempts, config.SOURCE_RETRY_MAX_ATTEMPTS),
      maxIntervalMs: s.source_retry_max_interval_seconds * 1000,
      backoff: s.source_retry_backoff,
    },
    run: task.runs,
    callback: task.callback !== null,
    // Delivered into the project's destination after publishing (domain/destinations/).
    ...(task.options.destination_id !== undefined ? { destination: true } : {}),
    ...(emails(task) > 0 ? { emails: emails(task) } : {}),
    heartbeatTimeoutMs: config.FETCH_HEARTBEAT_TIMEOUT_MS,
    // A paused task keeps the probe's totals and its staged pieces: its next run continues from them.
    ...(task.totalRows !== null ? { resume: true } : {}),
  };
}

/** What every run of a task starts with: its id, queue, priority and what operators see. */
function runOptions(deps: RunDeps, task: TaskRow, projectName: string) {
  return {
    workflowId: task.id,
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    // 1 runs first; within a priority the server shares the task queue fairly between projects
    // (matching.enableFairness, docs/operations.md).
    priority: { priorityKey: task.priority, fairnessKey: task.projectId },
    // The run upserts DcStatus and DcRows as it moves (workflows/visibility.ts).
    typedSearchAttributes: [
      { key: DC_PROJECT_ID, value: task.projectId },
      { key: DC_OPERATOR_ID, value: task.operatorId },
      { key: DC_EXPORT_TYPE, value: task.type },
      { key: DC_STATUS, value: 'queued' as const },
      ...(task.totalRows !== null ? [{ key: DC_ROWS, value: task.totalRows }] : []),
    ],
    staticSummary: runSummary(task, projectName),
    staticDetails: runDetails(task, deps.config.publicBaseUrl),
  };
}

/**
 * One line: project, operator, type and file name (markdown, shown in the UI's run list and header).
 * Every part is a caller's text, escaped: a link or an image planted in a name would render there.
 */
export function runSummary(task: Pick<TaskRow, 'operatorId' | 'type' | 'fileName'>, projectName: string): string {
  return [projectName, task.operatorId, task.type, task.fileName].map(markdownText).join(' · ');
}

/** A few lines an operator needs beside the summary; never the source's query string (it may hold filters of a person). */
export function runDetails(task: Pick<TaskRow, 'id' | 'sourceUrl' | 'pageSize' | 'options' | 'priority'>, publicBaseUrl: string): string {
  let host = '?';
  try {
    host = new URL(task.sourceUrl).host;
  } catch {
    // a row from before URL checks: leave it unknown
  }
  // Stored as the request's validation left it, so it parses again (as the probe does).
  const parsed = task.options.template === undefined ? undefined : parseTemplate(task.options.template);
  const columns = parsed?.ok
    ? `${leafCount(parsed.template.ceil)} columns${parsed.template.row ? ' with row headers' : ''}, from the request`
    : "none in the request (the source's template, or the first row's keys)";
  return [
    `**Source host:** ${markdownText(host)}`,
    `**Page size:** ${task.pageSize} · **priority:** ${task.priority}`,
    `**Template:** ${columns}`,
    `**Task:** ${publicBaseUrl.replace(/\/$/, '')}/v1/tasks/${task.id}`,
  ].join('\n');
}
