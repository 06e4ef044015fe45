// Task events for WebSocket subscribers and the sync export, fanned out through the database:
// a trigger NOTIFYs `task_events` on every change of a task row (db/functions/tasks_notify.sql), and every
// API process LISTENs, so a worker anywhere reaches subscribers on any API process. Notices only
// name the task; the row is read once per throttle interval per task, however many subscribers.
// A fan-out runs in slices (fan-out.ts), and a task's final status cuts its progress fan-out short:
// the sockets not yet told of that progress get the final state instead, without waiting for it.
import type { Database } from '../../db/client.js';
import type { TaskRow } from '../../db/schema.js';
import { isTerminal } from '../../model/task.js';
import { logger } from '../../platform/logger.js';
import { metrics } from '../../platform/metrics.js';
import { fanOut } from './fan-out.js';
import { getTask } from './queries.js';

export const TASK_EVENTS_CHANNEL = 'task_events';

export type TaskEventName = 'task.progress' | 'task.paused' | 'task.resumed' | 'task.succeeded' | 'task.failed' | 'task.cancelled' | 'task.expired';


/** The event a row's state is; `previous` is the status last sent, so leaving `paused` is task.resumed. */
export function eventFor(status: string, previous?: string): TaskEventName {
  if (isTerminal(status) || status === 'paused') return `task.${status}` as TaskEventName;
  return previous === 'paused' ? 'task.resumed' : 'task.progress';
}

export type TaskListener = (row: TaskRow, event: TaskEventName) => void;

interface Notice {
  id: string;
  project: string;
  status: string;
}

interface Pending {
  timer?: NodeJS.Timeout;
  lastFlush: number;
  lastVersion?: string;
  lastStatus?: string;
  /** Reads of one task run one after another, and each waits for the fan-out before it: events go out in order. */
  chain: Promise<void>;
  /** How many urgent reads were asked for: a progress fan-out stops once one is asked for after it. */
  urgent: number;
  /** The last fan-out stopped early: its version goes out again even unchanged (to every listener). */
  cut?: boolean;
  /** A read is in the chain and has not started: another would read the same row, so none is added. */
  queued?: boolean;
}

// What a subscriber can see change; identical versions are not sent twice.
const versionOf = (t: TaskRow) =>
  JSON.stringify([t.status, t.stage, t.runs, t.totalRows, t.pagesTotal, t.lanes, t.files.length, t.errorCode, t.expiresAt]);

export class TaskEvents {
  readonly ready: Promise<void>;
  private readonly byTask = new Map<string, Set<TaskListener>>();
  private readonly byProject = new Map<string, Set<TaskListener>>();
  private readonly pending = new Map<string, Pending>();
  private readonly sweeper: NodeJS.Timeout;
  private unlisten: (() => Promise<void>) | undefined;
  private closed = false;

  constructor(
    private readonly database: Database,
    private readonly intervalMs: number,
  ) {
    this.ready = this.database
      .listen(TASK_EVENTS_CHANNEL, (p) => this.onNotice(p), () => this.resync())
      .then((unlisten) => {
        this.unlisten = unlisten;
      })
      .catch((err: Error) => logger('events').error({ err, channel: TASK_EVENTS_CHANNEL }, 'cannot LISTEN'));
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  watchTask(taskId: string, listener: TaskListener): () => void {
    return add(this.byTask, taskId, listener);
  }

  watchProject(projectId: string, listener: TaskListener): () => void {
    return add(this.byProject, projectId, listener);
  }

  /**
   * Resolves with the task row once `until` holds, or null on timeout or abort. A slow poll backs
   * up the notices in case one is lost while the listening connection reconnects.
   */
  waitFor(taskId: string, until: (row: TaskRow) => boolean, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<TaskRow | null> {
    return new Promise((resolve) => {
      let settled = false;
      const finish = (row: TaskRow | null) => {
        if (settled) return;
        settled = true;
        unwatch();
        clearInterval(poll);
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        resolve(row);
      };
      const check = async () => {
        const row = await getTask(this.database.db, taskId).catch(() => undefined);
        if (!row) finish(null);
        else if (until(row)) finish(row);
      };
      const onAbort = () => finish(null);
      const unwatch = this.watchTask(taskId, (row) => {
        if (until(row)) finish(row);
      });
      const poll = setInterval(() => void check(), 2000);
      const timer = setTimeout(() => finish(null), opts.timeoutMs);
      if (opts.signal?.aborted) return finish(null);
      opts.signal?.addEventListener('abort', onAbort);
      void this.ready.then(check);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
    this.byTask.clear();
    this.byProject.clear();
    await this.ready;
    await this.unlisten?.().catch(() => {});
  }

  private onNotice(payload: string): void {
    let n: Notice;
    try {
      n = JSON.parse(payload) as Notice;
    } catch {
      return;
    }
    if (!this.byTask.has(n.id) && !this.byProject.has(n.project)) return;
    this.schedule(n.id, isTerminal(n.status) || n.status === 'paused');
  }

  /** Progress is coalesced to one read per interval; a final status goes out at once. */
  private schedule(taskId: string, urgent: boolean): void {
    if (this.closed) return;
    let p = this.pending.get(taskId);
    if (!p) this.pending.set(taskId, (p = { lastFlush: 0, chain: Promise.resolve(), urgent: 0 }));
    if (urgent) {
      p.urgent++;
      clearTimeout(p.timer);
      p.timer = undefined;
      this.flush(taskId, p);
      return;
    }
    if (p.timer) return;
    const wait = Math.max(0, p.lastFlush + this.intervalMs - Date.now());
    const entry = p;
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.flush(taskId, entry);
    }, wait);
  }

  private flush(taskId: string, p: Pending): void {
    p.lastFlush = Date.now();
    // At most one waiting read per task: a fan-out yields (domain/tasks/fan-out.ts), so timers keep
    // firing during a long one, and each would otherwise queue a read behind it.
    if (p.queued) return;
    p.queued = true;
    p.chain = p.chain
      .then(async () => {
        p.queued = false;
        const urgentBefore = p.urgent;
        // Only progress gives way, to an urgent read asked for after this one began: every other event reaches every listener.
        const superseded = (event: TaskEventName) => event === 'task.progress' && p.urgent !== urgentBefore;
        const readAt = performance.now();
        const row = await getTask(this.database.db, taskId);
        if (!row || this.closed) return;
        const version = versionOf(row);
        if (version === p.lastVersion && !p.cut) return;
        p.lastVersion = version;
        const previous = p.lastStatus;
        p.lastStatus = row.status;
        const event = eventFor(row.status, previous);
        p.cut = !(await this.dispatch(row, event, superseded));
        if (!p.cut) metrics.taskEventFanout.observe({ event }, (performance.now() - readAt) / 1000);
      })
      .catch((err: Error) => logger('events', { task_id: taskId }).error({ err }, 'reading the task failed'));
  }

  /**
   * To the listeners as they are now (one that stops listening meanwhile is still called: a closed
   * socket sends nothing). False when a newer event cut it short.
   */
  private async dispatch(row: TaskRow, event: TaskEventName, superseded: (event: TaskEventName) => boolean): Promise<boolean> {
    const listeners = [...(this.byTask.get(row.id) ?? []), ...(this.byProject.get(row.projectId) ?? [])];
    const call = (l: TaskListener) => {
      try {
        l(row, event);
      } catch (err) {
        logger('events').error({ err }, 'a listener failed');
      }
    };
    return (await fanOut(listeners, call, () => this.closed || superseded(event))) === listeners.length;
  }

  /** After a reconnect, re-read every watched task: a notice may have been missed meanwhile. */
  private resync(): void {
    for (const taskId of this.byTask.keys()) this.schedule(taskId, true);
  }

  private sweep(): void {
    const old = Date.now() - 60_000;
    // A paused task's entry stays: its resume must still be told as task.resumed.
    for (const [id, p] of this.pending) if (!p.timer && p.lastFlush < old && p.lastStatus !== 'paused') this.pending.delete(id);
  }
}

function add(map: Map<string, Set<TaskListener>>, key: string, listener: TaskListener): () => void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0 && map.get(key) === set) map.delete(key);
  };
}
