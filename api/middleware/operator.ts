// What an operator session's token may call (docs/api.md#operator-sessions), in one table: its
// operator's tasks of its project — list, count, read, download — and the actions its permissions
// name, plus the WebSocket. authenticate() refuses every other route with 403 before any handler
// runs, so a new route is closed to operator tokens until it is listed here. Another operator's
// task answers 404 (owned-task.ts), like another project's.
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { DomainError } from '../../domain/errors.js';
import { type LinkSigner, operatorTaskJson, signerFor, taskJson } from '../../domain/tasks/view.js';
import type { TaskRow } from '../../db/schema.js';
import type { AppEnv, Principal } from '../types.js';

type Operator = Extract<Principal, { kind: 'operator' }>;

/** Method, path, and the permission needed beyond the session itself (`download` every session holds). */
const ALLOWED: Array<[method: string, path: RegExp, permission: string]> = [
  ['GET', /^\/v1\/tasks\/?$/, 'download'],
  ['GET', /^\/v1\/tasks\/counts$/, 'download'],
  ['GET', /^\/v1\/tasks\/[^/]+$/, 'download'],
  ['GET', /^\/v1\/tasks\/[^/]+\/download$/, 'download'],
  ['POST', /^\/v1\/tasks\/[^/]+\/cancel$/, 'cancel'],
  ['POST', /^\/v1\/tasks\/[^/]+\/retry$/, 'retry'],
  ['POST', /^\/v1\/tasks\/[^/]+\/pause$/, 'pause'],
  // `pause` covers both ways: an operator who may pause a task may also let it go on.
  ['POST', /^\/v1\/tasks\/[^/]+\/resume$/, 'pause'],
  ['GET', /^\/v1\/ws\/?$/, 'download'],
  // Their own downloads (the count on their page): scoped to their sessions by routes/downloads.ts.
  ['GET', /^\/v1\/downloads\/?$/, 'download'],
  ['GET', /^\/v1\/downloads\/count$/, 'download'],
];

/** Throws 403 unless the operator's session may make this call. */
export function assertOperatorMayCall(p: Operator, method: string, path: string): void {
  const entry = ALLOWED.find(([m, re]) => m === method && re.test(path));
  if (!entry) throw new DomainError('forbidden', 'an operator session may only read, download and act on its own tasks');
  if (!p.permissions.includes(entry[2])) throw new DomainError('forbidden', `this operator session does not have the ${entry[2]} permission`);
}

/** The caller holds a project key, or an operator token (already held to the table above); the project is then `c.var.project`. */
export const projectOrOperator = createMiddleware<AppEnv>(async (c, next) => {
  const p = c.get('principal');
  if (p.kind === 'admin') throw new DomainError('forbidden', 'this call needs a project API key');
  c.set('project', p.project);
  await next();
});

/** The operator the caller is limited to, if it is an operator session. */
export function operatorScope(c: Context<AppEnv>): string | undefined {
  const p = c.get('principal');
  return p.kind === 'operator' ? p.operatorId : undefined;
}

/** The one task the caller is limited to, if it is an e-mail's link (a session made for one task). */
export function taskScope(c: Context<AppEnv>): string | undefined {
  const p = c.get('principal');
  return p.kind === 'operator' ? (p.taskId ?? undefined) : undefined;
}

/**
 * A task filter held to the caller's operator: naming another operator is 403, none means its own.
 * A session of one task lists and counts that task alone.
 */
export function scopedFilter<Q extends { operator_id?: string | undefined }>(c: Context<AppEnv>, q: Q): Q & { task_id?: string } {
  const operator = operatorScope(c);
  if (operator === undefined) return q;
  if (q.operator_id && q.operator_id !== operator) throw new DomainError('forbidden', 'an operator session sees only its own operator_id');
  const task = taskScope(c);
  return { ...q, operator_id: operator, ...(task === undefined ? {} : { task_id: task }) };
}

/** How the caller sees a task: the whole task with a project key, the operator's view with an operator token. */
export function taskView(c: Context<AppEnv>, signer: LinkSigner): (t: TaskRow) => ReturnType<typeof taskJson> | ReturnType<typeof operatorTaskJson> {
  const p = c.get('principal');
  // An operator's links carry their session, so what they download is recorded as theirs (docs/downloads.md).
  if (p.kind === 'operator') {
    const own = signerFor(signer, p.project, p.sessionId);
    return (t) => operatorTaskJson(t, own);
  }
  const project = signerFor(signer, c.get('project'));
  return (t) => taskJson(t, project);
}
