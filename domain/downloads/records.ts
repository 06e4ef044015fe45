// The record of downloads (docs/downloads.md): one row per response that handed out a task's file,
// written when the response ends, and the lists that read them newest first by index
// (downloads_*_idx in db/schema.ts; test/e2e/download-plans.test.ts checks the plans).
import { and, count, eq, gte, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type DownloadRow, downloads } from '../../db/schema.js';
import { storableText } from '../../model/storable.js';
import { newId } from '../../platform/crypto.js';
import { encodeCursor, newestFirst, olderThan } from '../cursor.js';
import { completesResumed } from './resumed.js';

/** The longest user agent kept, in characters: past it the text is clipped (with an ellipsis). */
export const USER_AGENT_MAX = 512;
/** The most downloads counted: beyond it the count says "at least". */
const DOWNLOAD_COUNT_MAX = 10_000;

export type DownloadVia = DownloadRow['via'];
export type DownloadBy = { kind: 'project'; id: string } | { kind: 'operator'; id: string; sessionId: string } | { kind: 'link' };

interface DownloadRecord {
  taskId: string;
  projectId: string;
  fileName: string;
  fileIndex: number;
  via: DownloadVia;
  by: DownloadBy;
  ip: string;
  userAgent: string;
  /** A Range answer's Content-Range; null for the whole file. */
  range: string | null;
  bytes: number;
  /** This answer sent the whole file. */
  complete: boolean;
  startedAt: Date;
  /** The file's size, and when the task's files were made: what tells a resumed download's last piece. */
  fileSize: number;
  filesMadeAt: Date | null;
}

/**
 * Writes the record. An answer that sent the whole file is complete; one that did not is complete
 * when it completes the file for its downloader (resumed.ts), checked in the transaction writing it.
 */
export async function recordDownload(db: Db, r: DownloadRecord): Promise<void> {
  if (r.complete || r.bytes === 0) {
    await db.insert(downloads).values(downloadRow(r, r.complete));
    return;
  }
  await db.transaction(async (tx) => {
    const complete = await completesResumed(tx, { ...r, ...whoOf(r.by), size: r.fileSize, madeAt: r.filesMadeAt });
    await tx.insert(downloads).values(downloadRow(r, complete));
  });
}

/** The columns that say who downloaded. */
function whoOf(by: DownloadBy) {
  return { byKind: by.kind, byId: by.kind === 'link' ? null : by.id, sessionId: by.kind === 'operator' ? by.sessionId : null };
}

function downloadRow(r: DownloadRecord, complete: boolean) {
  return {
    id: newId('dl'),
    taskId: r.taskId,
    projectId: r.projectId,
    fileName: r.fileName,
    fileIndex: r.fileIndex,
    via: r.via,
    ...whoOf(r.by),
    // Both come from the client: bounded and made storable (model/storable.ts).
    ip: storableText(r.ip, 64),
    userAgent: storableText(r.userAgent, USER_AGENT_MAX),
    range: r.range,
    bytes: r.bytes,
    complete,
    startedAt: r.startedAt,
    // Set here rather than by the database: list cursors compare it at millisecond precision.
    at: new Date(),
  };
}

export interface DownloadFilter {
  projectId: string;
  taskId?: string | undefined;
  /** An operator's own: downloads made through their sessions. */
  operatorId?: string | undefined;
  /** Inclusive. */
  since?: Date | undefined;
}

type Page = { limit: number; cursor?: string | undefined };

function downloadWhere(f: DownloadFilter): SQL[] {
  const w: SQL[] = f.taskId ? ofTask(f.taskId, f) : [eq(downloads.projectId, f.projectId)];
  if (!f.taskId && f.operatorId !== undefined) w.push(eq(downloads.byKind, 'operator'), eq(downloads.byId, f.operatorId));
  if (f.since) w.push(gte(downloads.at, f.since));
  return w;
}

/**
 * A task's downloads are read by the task's index alone, the project (and the operator, for a
 * session of one task) checked on its rows: as plain equalities the planner would also read the
 * operator's index and intersect the two (a cost that grows with the operator's other downloads).
 * A row compared with IS NOT DISTINCT FROM is served by no index, so a page costs the task's rows.
 */
function ofTask(taskId: string, f: DownloadFilter): SQL[] {
  const who = f.operatorId === undefined ? eq(downloads.projectId, f.projectId)
    : sql`(${downloads.projectId}, ${downloads.byKind}, ${downloads.byId}) is not distinct from (${f.projectId}, 'operator', ${f.operatorId})`;
  return [eq(downloads.taskId, taskId), who];
}

/**
 * One page, newest first. Each filter has an index whose leading columns are its equalities and
 * then (at, id): the project's, the task's, an operator's (of one task: the task's, ofTask above).
 * `since` ends the index range.
 */
export function downloadPageQuery(db: Db, q: DownloadFilter & Page) {
  const w = downloadWhere(q);
  if (q.cursor) w.push(olderThan(downloads.at, downloads.id, q.cursor));
  return db.select().from(downloads).where(and(...w)).orderBy(...newestFirst(downloads.at, downloads.id)).limit(q.limit + 1);
}

export async function listDownloads(db: Db, q: DownloadFilter & Page): Promise<{ items: DownloadRow[]; nextCursor: string | null }> {
  const rows = await downloadPageQuery(db, q);
  const items = rows.slice(0, q.limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > q.limit && last ? encodeCursor({ createdAt: last.at, id: last.id }) : null };
}

/** How many, counted up to DOWNLOAD_COUNT_MAX (so a count costs at most that many index entries). */
export async function countDownloads(db: Db, f: DownloadFilter): Promise<{ count: number; more: boolean }> {
  const capped = db.select({ id: downloads.id }).from(downloads).where(and(...downloadWhere(f))).limit(DOWNLOAD_COUNT_MAX + 1).as('capped');
  const [row] = await db.select({ n: count() }).from(capped);
  const n = Number(row?.n ?? 0);
  return { count: Math.min(n, DOWNLOAD_COUNT_MAX), more: n > DOWNLOAD_COUNT_MAX };
}

export function downloadJson(d: DownloadRow) {
  return {
    download_id: d.id,
    task_id: d.taskId,
    file: d.fileName,
    at: d.at.toISOString(),
    started_at: d.startedAt.toISOString(),
    by: { kind: d.byKind, id: d.byId, ...(d.sessionId ? { session_id: d.sessionId } : {}) },
    via: d.via,
    ip: d.ip,
    user_agent: d.userAgent,
    range: d.range,
    bytes: d.bytes,
    complete: d.complete,
  };
}

export type DownloadJson = ReturnType<typeof downloadJson>;
