// One task: name, status and stage, a live progress bar with rows and ETA, its files to download
// (each part and the zip), the error sentence of a failure, and the actions its status allows.
import { useState } from 'preact/hooks';
import { post } from './api.js';
import { TaskDownloads } from './downloads.js';
import { bytes, count, dateTime, duration } from './format.js';
import { useWords } from './i18n.js';
import type { TaskErrorCode } from '../../model/errors.js';
import type { ShownTask } from './types.js';

const ACTIONS = {
  pause: ['queued', 'running'],
  resume: ['paused'],
  cancel: ['queued', 'running', 'paused'],
  retry: ['failed', 'cancelled'],
} as const;
export type Action = keyof typeof ACTIONS;

/**
 * `can` says which actions the caller may take (an operator session's permissions); all by default.
 * `mine`: every row is the viewer's own (the operator center), so the operator is not named; its
 * tasks are the operator's view (no compression, recipients or technical message).
 */
export function TaskRow<T extends ShownTask>({ task: t, onChange, onError, can = () => true, mine = false }: { task: T; onChange: (t: T) => void; onError: (e: unknown) => void; can?: (a: Action) => boolean; mine?: boolean }) {
  const w = useWords();
  const [busy, setBusy] = useState(false);
  const p = t.progress;
  const percent = Math.max(0, Math.min(100, p.percent ?? 0));
  const active = t.status === 'queued' || t.status === 'running' || t.status === 'paused';
  const nameId = `name-${t.task_id}`;

  const act = async (a: Action) => {
    setBusy(true);
    try {
      onChange((await post<T>(`/v1/tasks/${encodeURIComponent(t.task_id)}/${a}`)).json);
    } catch (err) {
      onError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <li class={`task status-${t.status}`} aria-labelledby={nameId} data-task-id={t.task_id}>
      <div class="task-main">
        <div class="task-name" id={nameId}>
          {t.file_name}
          <span class="type">{t.type === 'excel' ? 'xlsx' : t.type}{t.compression ? ` · ${t.compression}` : ''}</span>
        </div>
        <div class="meta">
          <span class={`badge ${t.status}`}>{w.statuses[t.status] ?? t.status}</span>
          {t.stage && <span class="stage">{w.stages[t.stage] ?? t.stage}</span>}
          {!mine && <span>{w.operator}: {t.operator_id}</span>}
          {(t.notify_email?.length ?? 0) > 0 && (
            <span>
              {w.mailTo}: {t.notify_email?.join(', ')}
            </span>
          )}
          <span>
            {w.created} <time dateTime={t.created_at}>{dateTime(t.created_at, w.code)}</time>
          </span>
          <code class="id">{t.task_id}</code>
        </div>
      </div>
      <div class="task-progress">
        <div class="bar" role="progressbar" aria-label={w.progressOf(t.file_name)} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(percent)}>
          <div class="fill" style={{ width: `${percent}%` }} />
        </div>
        <div class="numbers">
          <span class="percent">{percent.toFixed(percent < 100 && percent > 0 ? 1 : 0)} %</span>
          <span>
            {count(p.fetched_rows, w.code)}
            {p.total_rows !== null && ` / ${count(p.total_rows, w.code)}`} {w.rows}
          </span>
          {active && p.eta_seconds !== null && (
            <span>
              {w.eta} {duration(p.eta_seconds, w.code)}
            </span>
          )}
        </div>
      </div>
      {t.error && (
        <p class="task-error" role="note" title={w.taskErrors ? t.error.message : undefined}>
          <code>{t.error.code}</code> {w.taskErrors?.[t.error.code as TaskErrorCode] ?? t.error.message}
        </p>
      )}
      {t.files.length > 0 && (
        <ul class="files" aria-label={w.download}>
          {t.files.map((f) => (
            <li key={f.name}>
              <a class="download" href={f.url} download={f.name} rel="noreferrer">
                {w.download} {f.name}
              </a>
              <span class="size">{bytes(f.bytes)}</span>
            </li>
          ))}
        </ul>
      )}
      {!mine && t.files.length > 0 && <TaskDownloads taskId={t.task_id} onError={onError} />}
      <div class="actions">
        {(Object.keys(ACTIONS) as Action[])
          .filter((a) => can(a) && (ACTIONS[a] as readonly string[]).includes(t.status))
          .map((a) => (
            <button key={a} type="button" class={a === 'cancel' ? 'danger' : ''} disabled={busy} onClick={() => act(a)} aria-describedby={nameId}>
              {w[a]}
            </button>
          ))}
      </div>
    </li>
  );
}
