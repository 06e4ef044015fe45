// One WebSocket connection of a project (or of one operator of it, with an operator session's token): its subscriptions, its limits, its credential checked
// again while it is open, and the events it is sent. Messages are small JSON objects; anything else counts as a strike.
import type { WebSocket } from 'ws';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { ProjectRow, TaskRow } from '../../db/schema.js';
import { getTask } from '../../domain/tasks/queries.js';
import type { Config } from '../../platform/config.js';
import { metrics } from '../../platform/metrics.js';
import { eventFor, type TaskEventName, type TaskEvents, type TaskListener } from '../../domain/tasks/events.js';
import type { LinkSigner } from '../../domain/tasks/view.js';
import { activeSnapshot, frameFor } from './frames.js';
import { textProblem } from '../text.js';

// A task id with a NUL or an unpaired surrogate cannot even be looked up (Postgres refuses it).
const target = z.string().min(1).max(128).refine((s) => textProblem(s) === null);
const clientMessage = z.union([z.object({ subscribe: target }).strict(), z.object({ unsubscribe: target }).strict()]);

export interface SessionDeps {
  db: Db;
  hub: TaskEvents;
  signer: LinkSigner;
  config: Config;
  /** Whether the key the socket opened with is still valid (rotation grace over, revoked …). */
  recheck: () => Promise<boolean>;
  /** Set for an operator session: only this operator's tasks are shown, others look missing. */
  operatorId?: string | undefined;
  /** Set for a session of one task (an e-mail's link): only that task is shown. */
  taskId?: string | undefined;
}

// Abuse limits that need no tuning: a client that keeps sending garbage or floods is cut off.
const MAX_STRIKES = 5;
const MAX_MESSAGES_PER_10S = 50;
// Per connection, the last-sent times kept: pruned past this size, of tasks unchanged this long.
const SENT_AT_PRUNE_SIZE = 1000;
const SENT_AT_KEEP_MS = 10 * 60_000;
// How often progress held back from a slow reader is looked at again.
const DRAIN_CHECK_MS = 250;

/** 4401: the credential no longer opens the project (the HTTP API answers 401 for it now). */
export const CLOSE = { normal: 1000, goingAway: 1001, policy: 1008, tryAgainLater: 1013, unauthorized: 4401 } as const;

// Events sent, counted here and added to the metric once per turn of the event loop: a fan-out
// sends one per socket, and the metric's label lookup would cost more than the count.
const unsent = new Map<TaskEventName, number>();
function countSent(event: TaskEventName): void {
  if (unsent.size === 0) setImmediate(addSent);
  unsent.set(event, (unsent.get(event) ?? 0) + 1);
}
function addSent(): void {
  for (const [event, n] of unsent) metrics.wsEvents.inc({ event }, n);
  unsent.clear();
}

export class Session {
  private readonly subs = new Map<string, () => void>();
  /** Per task, the updated_at last sent: a read that raced a newer one is never sent after it. */
  private readonly sentAt = new Map<string, number>();
  private prunedAt = 0;
  private strikes = 0;
  private window = { start: Date.now(), count: 0 };
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly pingTimer: NodeJS.Timeout;
  private readonly authTimer: NodeJS.Timeout;
  private checking = false;
  private alive = true;
  private disposed = false;
  /** Progress held back while the client reads slowly: only the latest per task is kept. */
  private readonly heldBack = new Map<string, { row: TaskRow; event: TaskEventName }>();
  private drainTimer: NodeJS.Timeout | undefined;
  /** Messages are handled one at a time, in order: limits hold and replies keep their order. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly ws: WebSocket,
    private readonly project: ProjectRow,
    private readonly deps: SessionDeps,
  ) {
    ws.on('pong', () => (this.alive = true));
    // A peer that vanished without a close frame is found by the next unanswered ping.
    this.pingTimer = setInterval(() => {
      if (!this.alive) return ws.terminate();
      this.alive = false;
      ws.ping();
    }, deps.config.WS_PING_MS);
    this.authTimer = setInterval(() => void this.checkCredential(), deps.config.WS_AUTH_RECHECK_MS);
    this.armIdle();
  }

  /** Closes the socket with 4401 once its key stops opening the project; nothing more is sent. */
  async checkCredential(): Promise<void> {
    if (this.checking || this.disposed) return;
    this.checking = true;
    try {
      if (!(await this.deps.recheck())) this.close(CLOSE.unauthorized, 'the API key is no longer valid');
    } finally {
      this.checking = false;
    }
  }

  message(data: string | ArrayBuffer): Promise<void> {
    if (!this.withinRate()) {
      this.close(CLOSE.policy, 'too many messages');
      return this.queue;
    }
    this.queue = this.queue.then(() => this.handle(data));
    return this.queue;
  }

  private async handle(data: string | ArrayBuffer): Promise<void> {
    if (typeof data !== 'string') return this.strike('bad_message', 'send JSON text frames, not binary');
    let raw: unknown;
    try {
      raw = JSON.parse(data);
    } catch {
      return this.strike('bad_message', 'the message is not valid JSON');
    }
    const parsed = clientMessage.safeParse(raw);
    if (!parsed.success) return this.strike('bad_message', 'send {"subscribe": "<task_id>"}, {"subscribe": "*"} or {"unsubscribe": …}');
    const msg = parsed.data;
    if ('unsubscribe' in msg) return this.unsubscribe(msg.unsubscribe);
    return this.subscribe(msg.subscribe);
  }

  close(code: number, reason: string): void {
    this.dispose();
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.close(code, reason);
  }

  dispose(): void {
    this.disposed = true;
    clearInterval(this.pingTimer);
    clearInterval(this.authTimer);
    clearTimeout(this.idleTimer);
    clearInterval(this.drainTimer);
    this.heldBack.clear();
    for (const off of this.subs.values()) off();
    this.subs.clear();
  }

  private async subscribe(target: string): Promise<void> {
    if (this.subs.has(target)) return this.send({ subscribed: target });
    if (this.subs.size >= this.deps.config.WS_MAX_SUBSCRIPTIONS) {
      return this.send({ error: { code: 'too_many_subscriptions', message: `a connection may hold ${this.deps.config.WS_MAX_SUBSCRIPTIONS} subscriptions`, subscribe: target } });
    }
    if (target === '*') {
      this.watch(target, (listener) => this.deps.hub.watchProject(this.project.id, listener));
      this.armIdle();
      this.send({ subscribed: '*' });
      for (const row of await activeSnapshot(this.deps.db, this.project.id, this.deps.operatorId, this.deps.taskId)) this.push(row, eventFor(row.status));
      return;
    }
    const row = await getTask(this.deps.db, target);
    if (this.disposed) return;
    // Another project's task looks exactly like a missing one (docs/api.md#errors).
    if (!row || !this.maySee(row)) {
      return this.strike('not_found', `task ${target} was not found`, { subscribe: target });
    }
    this.watch(target, (listener) => this.deps.hub.watchTask(target, listener));
    this.armIdle();
    this.send({ subscribed: target });
    // Read again after watching, so no change falls between the snapshot and the first notice.
    const current = (await getTask(this.deps.db, target)) ?? row;
    this.push(current, eventFor(current.status));
  }

  /** A subscription whose listener goes quiet the moment it ends, even in a fan-out under way (it yields between slices). */
  private watch(target: string, start: (listener: TaskListener) => () => void): void {
    let live = true;
    const off = start((row, event) => live && this.push(row, event));
    this.subs.set(target, () => {
      live = false;
      off();
    });
  }

  private unsubscribe(target: string): void {
    this.subs.get(target)?.();
    this.subs.delete(target);
    this.armIdle();
    this.send({ unsubscribed: target });
  }

  /**
   * Sends a task event. Progress to a client with more than WS_MAX_BUFFERED_BYTES unread waits,
   * coalesced to the latest per task; any other event is never dropped: a client too slow to take
   * it is closed with 1013 (try again later), so it reconnects and reads the task instead of
   * waiting for an event that will not come.
   */
  private push(row: TaskRow, event: TaskEventName): void {
    // A project-wide watch of an operator's socket hears every task of the project: only its own go out.
    if (!this.maySee(row)) return;
    const at = row.updatedAt.getTime();
    const last = this.sentAt.get(row.id);
    if (last !== undefined && at < last) return;
    const slow = this.ws.bufferedAmount > this.deps.config.WS_MAX_BUFFERED_BYTES;
    if (event === 'task.progress' && slow) return this.holdBack(row, event);
    this.heldBack.delete(row.id);
    if (slow) return this.close(CLOSE.tryAgainLater, `too slow to receive ${event} of ${row.id}; reconnect and read the task`);
    this.sentAt.set(row.id, at);
    if (this.sentAt.size > SENT_AT_PRUNE_SIZE && Date.now() - this.prunedAt > 60_000) this.pruneSentAt();
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(frameFor(row, event, this.deps.signer, this.deps.operatorId === undefined ? 'project' : 'operator'), { binary: false });
    countSent(event);
  }

  private maySee(row: TaskRow): boolean {
    const { operatorId, taskId } = this.deps;
    return row.projectId === this.project.id && (operatorId === undefined || row.operatorId === operatorId) && (taskId === undefined || row.id === taskId);
  }

  /**
   * A `*` subscriber held for days sees every task of its project: forget tasks unchanged for a
   * while (the guard only orders reads racing within moments), so the map stays bounded.
   */
  private pruneSentAt(): void {
    this.prunedAt = Date.now();
    const old = this.prunedAt - SENT_AT_KEEP_MS;
    for (const [id, at] of this.sentAt) if (at < old) this.sentAt.delete(id);
  }

  private holdBack(row: TaskRow, event: TaskEventName): void {
    this.heldBack.set(row.id, { row, event });
    this.drainTimer ??= setInterval(() => {
      if (this.ws.bufferedAmount > this.deps.config.WS_MAX_BUFFERED_BYTES) return;
      clearInterval(this.drainTimer);
      this.drainTimer = undefined;
      const held = [...this.heldBack.values()];
      this.heldBack.clear();
      for (const h of held) this.push(h.row, h.event);
    }, DRAIN_CHECK_MS);
  }

  private send(message: unknown): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }

  private strike(code: string, message: string, extra: Record<string, string> = {}): void {
    this.send({ error: { code, message, ...extra } });
    if (++this.strikes >= MAX_STRIKES) this.close(CLOSE.policy, 'too many invalid messages');
  }

  private withinRate(): boolean {
    const now = Date.now();
    if (now - this.window.start > 10_000) this.window = { start: now, count: 0 };
    return ++this.window.count <= MAX_MESSAGES_PER_10S;
  }

  /** A connection without subscriptions is closed after WS_IDLE_MS; one that watches stays. */
  private armIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.subs.size > 0) return;
    this.idleTimer = setTimeout(() => this.close(CLOSE.normal, 'idle'), this.deps.config.WS_IDLE_MS);
  }
}
