// The schedules page (docs/schedules.md): the project's recurring exports with pause, resume, run now
// and delete. Creating one stays an API call (its body is a whole task plus cron or interval). A
// schedule that paused itself after failing stands out: a red badge with the reason, its last error,
// a line above the list counting them; a backfill shows its progress. #/schedules/<id> (the link of a
// schedule alert's mail) scrolls to that schedule.
import { useEffect, useState } from 'preact/hooks';
import { del, post } from './api.js';
import { dateTime } from './format.js';
import { useWords } from './i18n.js';
import { usePagedList } from './paged-list.js';
import type { Schedule } from './types.js';

export function SchedulesPage() {
  const w = useWords();
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  const { items, cursor, loaded, load } = usePagedList<Schedule>('/v1/schedules', (text) => setMessage({ error: true, text }));
  const [busy, setBusy] = useState<string | null>(null);

  // The schedule a link names, once the list has it.
  const target = location.hash.startsWith('#/schedules/') ? decodeURIComponent(location.hash.slice('#/schedules/'.length)) : null;
  useEffect(() => {
    if (target && loaded) document.getElementById(`sch-${target}`)?.scrollIntoView({ block: 'center' });
  }, [loaded, target]);
  const failing = items.filter((s) => s.paused_reason === 'failing').length;

  const act = async (s: Schedule, action: 'pause' | 'resume' | 'trigger' | 'delete') => {
    if (action === 'delete' && !confirm(w.confirmDelete)) return;
    setBusy(s.schedule_id);
    setMessage(null);
    try {
      const path = `/v1/schedules/${encodeURIComponent(s.schedule_id)}`;
      if (action === 'delete') await del(path);
      else await post(`${path}/${action}`);
      if (action === 'trigger') setMessage({ error: false, text: w.triggered });
      await load();
    } catch (err) {
      setMessage({ error: true, text: (err as Error).message });
    } finally {
      setBusy(null);
    }
  };

  return (
    <section class="card" aria-labelledby="schedules-title">
      <div class="section-head">
        <h2 id="schedules-title">{w.schedules}</h2>
        <button type="button" class="ghost" onClick={() => load()}>{w.refresh}</button>
      </div>
      {message && <p class={message.error ? 'error' : 'ok'} role={message.error ? 'alert' : 'status'}>{message.text}</p>}
      {failing > 0 && <p class="error" role="alert">{w.failingCount(failing)}</p>}
      {loaded && items.length === 0 && <p class="empty">{w.noSchedules}</p>}
      <ul class="schedules">
        {items.map((s) => (
          <li key={s.schedule_id} class={`schedule${s.paused_reason === 'failing' ? ' failing' : ''}${target === s.schedule_id ? ' target' : ''}`} aria-labelledby={`sch-${s.schedule_id}`}>
            <div class="task-main">
              <div class="task-name" id={`sch-${s.schedule_id}`}>
                {s.task.file_name ?? s.schedule_id}
                <span class="type">{s.task.type === 'excel' || s.task.type === 'xlsx' ? 'xlsx' : (s.task.type ?? 'csv')}</span>
              </div>
              <div class="meta">
                <StateBadge s={s} />
                <code>{s.cron ?? `${w.every} ${s.every}`}</code>
                <span>{w.timezone}: {s.timezone}</span>
                <span>{w.operator}: {s.task.operator_id}</span>
                {s.last_run && (
                  <span>
                    {w.lastRun}: {dateTime(s.last_run.at, w.code)} ({s.last_run.outcome})
                  </span>
                )}
                <code class="id">{s.schedule_id}</code>
              </div>
              {!s.paused && s.consecutive_failures > 0 && <p class="task-warning">{w.failuresInRow(s.consecutive_failures, s.pause_after_failures)}</p>}
              {s.last_error && (
                <p class="task-error">
                  {w.lastError}: <code>{s.last_error.code}</code> {s.last_error.message}
                  {s.last_error.task_id && <code class="id"> {s.last_error.task_id}</code>}
                </p>
              )}
              {s.note && s.paused_reason !== 'failing' && <p class="task-error">{s.note}</p>}
              {s.backfill && <BackfillProgress done={s.backfill.done} total={s.backfill.total} />}
            </div>
            <div class="actions">
              {s.paused ? <button type="button" disabled={busy === s.schedule_id} onClick={() => act(s, 'resume')}>{w.resume}</button> : <button type="button" disabled={busy === s.schedule_id} onClick={() => act(s, 'pause')}>{w.pause}</button>}
              <button type="button" disabled={busy === s.schedule_id} onClick={() => act(s, 'trigger')}>{w.trigger}</button>
              <button type="button" class="danger" disabled={busy === s.schedule_id} onClick={() => act(s, 'delete')}>{w.delete}</button>
            </div>
          </li>
        ))}
      </ul>
      {cursor && <button type="button" class="ghost more" onClick={() => load(cursor)}>{w.loadMore}</button>}
    </section>
  );
}

/** Active, or paused and why: a failing schedule's badge is red. */
function StateBadge({ s }: { s: Schedule }) {
  const w = useWords();
  if (!s.paused) return <span class="badge running">{w.active}</span>;
  const reason = s.paused_reason ?? 'manual';
  return <span class={`badge ${reason === 'manual' ? 'paused' : 'failed'}`}>{w.pausedReasons[reason] ?? w.paused}</span>;
}

function BackfillProgress({ done, total }: { done: number; total: number }) {
  const w = useWords();
  return (
    <p class="backfill">
      <progress value={done} max={Math.max(total, 1)} aria-label={w.backfill(done, total)} /> <span>{w.backfill(done, total)}</span>
    </p>
  );
}
