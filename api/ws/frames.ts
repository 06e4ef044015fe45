// What a WebSocket is sent about a task, serialised once per change however many sockets watch it:
// the hub hands every listener the same row object, so the frame is built for the first and reused.
import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type TaskRow, tasks } from '../../db/schema.js';
import type { TaskEventName } from '../../domain/tasks/events.js';
import { type LinkSigner, operatorTaskJson, taskJson } from '../../domain/tasks/view.js';
import { ACTIVE_STATUSES } from '../../model/task.js';

/** Whose view of the task a frame carries: the project key's whole task, or an operator token's (domain/tasks/view.ts). */
export type FrameView = 'project' | 'operator';

const frames = new WeakMap<TaskRow, Map<string, Buffer>>();
// The frame asked for last: a fan-out asks for the same one once per socket, thousands in a row.
let last: { row: TaskRow; event: TaskEventName; by: string | undefined; view: FrameView; frame: Buffer } | undefined;

/** The text of the frame as UTF-8 bytes: sent as is (ws would otherwise encode the string per socket). */
export function frameFor(row: TaskRow, event: TaskEventName, signer: LinkSigner, view: FrameView = 'project'): Buffer {
  if (last && last.row === row && last.event === event && last.by === signer.by && last.view === view) return last.frame;
  const frame = builtFrame(row, event, signer, view);
  last = { row, event, by: signer.by, view, frame };
  return frame;
}

function builtFrame(row: TaskRow, event: TaskEventName, signer: LinkSigner, view: FrameView): Buffer {
  let byEvent = frames.get(row);
  if (!byEvent) frames.set(row, (byEvent = new Map()));
  // An operator's links carry their session: each session's frame is its own.
  const key = `${view}:${signer.by ?? ''}:${event}`;
  let frame = byEvent.get(key);
  if (frame === undefined) {
    const task = view === 'operator' ? operatorTaskJson(row, signer) : taskJson(row, signer);
    byEvent.set(key, (frame = Buffer.from(JSON.stringify({ event, task }))));
  }
  return frame;
}

// On `*`, the current state of at most this many active tasks is sent at once.
const SNAPSHOT_LIMIT = 100;
// Thousands of sockets subscribing at once (a fleet of browser tabs reconnecting) share one query.
const SNAPSHOT_SHARE_MS = 250;
const snapshots = new Map<string, { at: number; rows: Promise<TaskRow[]> }>();

/**
 * The project's queued, running and paused tasks, oldest first (the `*` subscription's snapshot);
 * an operator's socket asks for that operator's alone, so the limit never hides its own tasks
 * behind other operators' newer ones; a session of one task, for that task alone.
 */
export function activeSnapshot(db: Db, projectId: string, operatorId?: string, taskId?: string): Promise<TaskRow[]> {
  const now = Date.now();
  const key = [projectId, operatorId ?? '', taskId ?? ''].join('\u0000');
  const hit = snapshots.get(key);
  if (hit && now - hit.at < SNAPSHOT_SHARE_MS) return hit.rows;
  const rows = db
    .select()
    .from(tasks)
    .where(and(eq(tasks.projectId, projectId), inArray(tasks.status, [...ACTIVE_STATUSES]), operatorId === undefined ? undefined : eq(tasks.operatorId, operatorId), taskId === undefined ? undefined : eq(tasks.id, taskId)))
    .orderBy(desc(tasks.createdAt))
    .limit(SNAPSHOT_LIMIT)
    .then((r) => r.reverse());
  snapshots.set(key, { at: now, rows });
  for (const [id, s] of snapshots) if (now - s.at > SNAPSHOT_SHARE_MS) snapshots.delete(id);
  return rows;
}
