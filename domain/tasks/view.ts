import type { ProjectRow, TaskRow } from '../../db/schema.js';
import { settingsOf } from '../projects/projects.js';
import { taskErrorCode } from '../../model/errors.js';
import type { Config } from '../../platform/config.js';
import { type DirectLinks, directLink, directLinks, signLink } from '../../platform/links.js';
import { taskErrorSentence } from '../callbacks/email-text.js';
import { taskSheets } from '../staging/sheets.js';
import { taskCompression } from '../formats/compression.js';

export interface LinkSigner {
  baseUrl: string;
  secret: string;
  ttlSeconds: number;
  /** With S3 storage: files[].url goes to the bucket (or its CDN) directly; null: through the API. */
  direct: DirectLinks | null;
  /** The operator session the links are made for: their downloads are recorded as its operator's. */
  by?: string | undefined;
}

/**
 * The signer of one project's links, for one operator session if given: a project with
 * downloads_through_api gets the API's signed links even where direct downloads are on, since a
 * presigned URL's downloads never reach us to be recorded (docs/downloads.md).
 */
export function signerFor(signer: LinkSigner, project: Pick<ProjectRow, 'settings'>, sessionId?: string): LinkSigner {
  const direct = settingsOf(project).downloads_through_api ? null : signer.direct;
  return { ...signer, direct, by: sessionId };
}

/** How file links are signed: the same for the API, the WebSocket and callbacks. */
export const linkSigner = (config: Pick<Config, 'publicBaseUrl' | 'LINK_TTL_SECONDS' | 's3' | 'directDownloads'>, secret: string): LinkSigner => ({
  baseUrl: config.publicBaseUrl,
  secret,
  ttlSeconds: config.LINK_TTL_SECONDS,
  direct: directLinks(config),
});

function progress(t: TaskRow) {
  const lanes = Object.values(t.lanes ?? {});
  const pagesDone = lanes.reduce((s, l) => s + l.pages, 0);
  const fetchedRows = lanes.reduce((s, l) => s + l.rows, 0);
  const total = t.totalRows;
  let percent = t.status === 'succeeded' ? 100 : total === null ? 0 : total === 0 ? 100 : (fetchedRows / total) * 100;
  percent = Math.round(percent * 10) / 10;
  let eta: number | null = null;
  if (t.status === 'running' && t.startedAt && percent > 0 && percent < 100) {
    const elapsed = (Date.now() - t.startedAt.getTime()) / 1000;
    eta = Math.max(0, Math.round((elapsed * (100 - percent)) / percent));
  }
  return { total_rows: total, fetched_rows: fetchedRows, pages_total: t.pagesTotal, pages_done: pagesDone, percent, eta_seconds: eta };
}

/** The task's files with their signed links; a failed delivery's files stay downloadable until they expire (docs/destinations.md). */
function signedFiles(t: TaskRow, signer: LinkSigner) {
  if (t.status !== 'succeeded' && t.status !== 'failed') return [];
  const now = new Date();
  // A link never outlives the task's files (expires_at) nor LINK_TTL_SECONDS.
  const linkExpiry = new Date(Math.min(now.getTime() + signer.ttlSeconds * 1000, t.expiresAt?.getTime() ?? Infinity));
  return t.files.map((f) => {
    const link =
      (signer.direct && directLink(signer.direct, f, linkExpiry, now)) ??
      signLink({ baseUrl: signer.baseUrl, secret: signer.secret, taskId: t.id, name: f.name, expiresAt: linkExpiry, by: signer.by });
    return { file: f, url: link.url, expires_at: link.expiresAt.toISOString() };
  });
}

export function taskJson(t: TaskRow, signer: LinkSigner) {
  const files = signedFiles(t, signer).map(({ file: f, url, expires_at }) => ({
    name: f.name,
    bytes: f.bytes,
    rows: f.rows,
    sha256: f.sha256,
    url,
    expires_at,
    ...(f.delivered_to ? { delivered_to: f.delivered_to } : {}),
  }));
  return {
    task_id: t.id,
    project_id: t.projectId,
    operator_id: t.operatorId,
    type: t.type,
    compression: taskCompression(t),
    file_name: t.fileName,
    source_url: t.sourceUrl,
    // A workbook of several sheets: each sheet's name (as in the workbook) and source.
    ...(t.options.sheets ? { sheets: taskSheets(t).map((s) => ({ name: s.name, source_url: s.sourceUrl })) } : {}),
    page_size: t.pageSize,
    priority: t.priority,
    callback: t.callback,
    // Where its files are delivered (docs/destinations.md); absent for a task without a destination.
    ...(t.options.destination_id !== undefined ? { destination_id: t.options.destination_id, destination_path: t.options.destination_path ?? null } : {}),
    notify_email: t.options.notify_email ?? [],
    locale: t.options.locale ?? 'en',
    // The schedule whose run submitted it (null for a task submitted directly).
    schedule_id: t.scheduleId,
    status: t.status,
    // How many times the task has run: 1, then one more for each retry.
    runs: t.runs,
    stage: t.status === 'running' ? t.stage : null,
    progress: progress(t),
    files,
    // A row failed before the vocabulary was enforced may hold another type ("Error"): shown as internal_error.
    error: t.errorCode ? { code: taskErrorCode(t.errorCode), message: t.errorMessage ?? '' } : null,
    created_at: t.createdAt.toISOString(),
    started_at: t.startedAt?.toISOString() ?? null,
    finished_at: t.finishedAt?.toISOString() ?? null,
    expires_at: t.expiresAt?.toISOString() ?? null,
  };
}

export type TaskJson = ReturnType<typeof taskJson>;

/**
 * The task as an operator session's token sees it (docs/SECURITY.md#operator-sessions-files-not-plumbing): what the
 * person who asked for the files needs to follow and download them, and nothing of the plumbing.
 * source_url (whose query often carries the source's credentials), callback, notify_email (the
 * other recipients), the destination, the schedule and the raw error text stay with the project
 * key. A failure says its code and the vocabulary's sentence, never the technical message.
 * Built field by field, so a field added to taskJson stays out of it until it is added here.
 */
export function operatorTaskJson(t: TaskRow, signer: LinkSigner) {
  const code = t.errorCode ? taskErrorCode(t.errorCode) : null;
  return {
    task_id: t.id,
    operator_id: t.operatorId,
    type: t.type,
    file_name: t.fileName,
    status: t.status,
    stage: t.status === 'running' ? t.stage : null,
    progress: progress(t),
    files: signedFiles(t, signer).map(({ file: f, url, expires_at }) => ({ name: f.name, bytes: f.bytes, rows: f.rows, url, expires_at })),
    error: code ? { code, message: taskErrorSentence(code) } : null,
    created_at: t.createdAt.toISOString(),
    finished_at: t.finishedAt?.toISOString() ?? null,
    expires_at: t.expiresAt?.toISOString() ?? null,
  };
}

export type OperatorTaskJson = ReturnType<typeof operatorTaskJson>;
