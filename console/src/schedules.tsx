// The schedules page (docs/schedules.md): the project's recurring exports with pause, resume, run now
// and delete. Creating one stays an API call (its body is a whole task plus cron or interval).
import { useEffect, useState } from 'preact/hooks';
import { del, getJson, post } from './api.js';
import { dateTime } from './format.js';
import { useWords } from './i18n.js';
import type { Schedule, SchedulePage } from './types.js';

export function SchedulesPage() {
  const w = useWords();
  const [items, setItems] = useState<Schedule[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);

  const load = async (after: string | null = null) => {
    try {
      const page = await getJson<SchedulePage>(`/v1/schedules?limit=50${after ? `&cursor=${encodeURIComponent(after)}` : ''}`);
      setItems((old) => (after ? [...old, ...page.items] : page.items));
      setCursor(page.next_cursor);
    } catch (err) {
      setMessage({ error: true, text: (err as Error).message });
    } finally {
      setLoaded(true);
    }
  };
  useEffect(() => void load(), []);

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
      {loaded && items.length === 0 && <p class="empty">{w.noSchedules}</p>}
      <ul class="schedules">
        {items.map((s) => (
          <li key={s.schedule_id} class="schedule" aria-labelledby={`sch-${s.schedule_id}`}>
            <div class="task-main">
              <div class="task-name" id={`sch-${s.schedule_id}`}>
                {s.task.file_name ?? s.schedule_id}
                <span class="type">{s.task.type === 'excel' || s.task.type === 'xlsx' ? 'xlsx' : (s.task.type ?? 'csv')}</span>
              </div>
              <div class="meta">
                <span class={`badge ${s.paused ? 'paused' : 'running'}`}>{s.paused ? w.paused : w.active}</span>
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
              {s.note && <p class="task-error">{s.note}</p>}
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
