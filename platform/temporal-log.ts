// The Temporal SDK's logs (the worker, activity Context.log, workflow log, and Core's native logs
// forwarded through Runtime.install) go to our pino logger, so the SDK's lines are JSON lines like
// ours. An activity's lines carry `task_id` and `activity`, which is what an operator greps for.
import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import { log as root, type Logger } from './logger.js';

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };

/** The task a workflow id belongs to: the export's own id, or its callback's `<task>.callback.<run>`. */
export function taskIdOf(workflowId: unknown): string | undefined {
  if (typeof workflowId !== 'string') return undefined;
  const m = /^(tsk_[A-Za-z0-9]+)(?:\.|$)/.exec(workflowId);
  return m?.[1];
}

/** Our field names first (task_id, activity, workflow_id), then whatever else the SDK attached. */
export function fieldsOf(meta: LogMetadata = {}): Record<string, unknown> {
  const { sdkComponent, activityType, workflowId, workflowType, runId, workflowRunId, error, ...rest } = meta as Record<string, unknown>;
  const out: Record<string, unknown> = { component: `temporal.${String(sdkComponent ?? 'sdk')}` };
  const task = taskIdOf(workflowId);
  if (task) out.task_id = task;
  if (activityType) out.activity = activityType;
  if (workflowId) out.workflow_id = workflowId;
  if (workflowType) out.workflow_type = workflowType;
  if (runId ?? workflowRunId) out.run_id = runId ?? workflowRunId;
  if (error !== undefined) out.err = error;
  // Symbols (the SDK's internal timestamp) are dropped; the rest stays as the SDK named it.
  for (const [k, v] of Object.entries(rest)) out[k] = v;
  return out;
}

export class PinoTemporalLogger implements TemporalLogger {
  constructor(private readonly base: Logger = root) {}
  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    // The SDK logs every activity's start and end at DEBUG: no fields are built for a line pino drops.
    if (!this.base.isLevelEnabled(LEVELS[level])) return;
    this.base[LEVELS[level]](fieldsOf(meta), message);
  }
  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}
