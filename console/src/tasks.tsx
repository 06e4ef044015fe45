// The tasks page: the project's tasks newest first (cursor pages), filtered by operator, status and
// creation date, kept current by the WebSocket; the submit form above them.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, getJson, taskQuery } from './api.js';
import { Filters, emptyFilters } from './filters.js';
import { useWords } from './i18n.js';
import { connectLive } from './live.js';
import { SubmitPanel } from './submit.js';
import { TaskRow } from './task-row.js';
import type { Task, TaskFilters, TaskPage } from './types.js';

/** Whether a task pushed by the WebSocket belongs in the list as filtered. */
function matches(t: Task, f: TaskFilters): boolean {
  if (f.operator_id.trim() && t.operator_id !== f.operator_id.trim()) return false;
  if (f.status && t.status !== f.status) return false;
  const q = new URLSearchParams(taskQuery(f));
  const created = Date.parse(t.created_at);
  if (q.has('created_after') && created < Date.parse(q.get('created_after')!)) return false;
  if (q.has('created_before') && created >= Date.parse(q.get('created_before')!)) return false;
  return true;
}

export function TasksPage({ apiKey, onUnauthorized }: { apiKey: string; onUnauthorized: () => void }) {
  const w = useWords();
  const [filters, setFilters] = useState<TaskFilters>(emptyFilters);
  const [tasks, setTasks] = useState<Task[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [online, setOnline] = useState(false);
  const filtersRef = useRef(filters);
  filtersRef.current = filters;

  const failed = (err: unknown) => {
    if (err instanceof ApiError && err.status === 401) return onUnauthorized();
    setError((err as Error).message);
  };

  // Only the newest list request may fill the list: an older answer arriving late (a reset, then
  // new filters at once) must not replace the newer one.
  const latest = useRef(0);
  const load = useCallback(async (f: TaskFilters, after: string | null = null) => {
    const id = ++latest.current;
    setLoading(true);
    setError(null);
    try {
      const page = await getJson<TaskPage>(`/v1/tasks?${taskQuery(f, after)}`);
      if (id !== latest.current) return;
      setTasks((old) => (after ? [...old, ...page.items.filter((t) => !old.some((o) => o.task_id === t.task_id))] : page.items));
      setCursor(page.next_cursor);
    } catch (err) {
      if (id === latest.current) failed(err);
    } finally {
      if (id === latest.current) setLoading(false);
    }
  }, []);

  /** A task's newest state, from an action's answer or the WebSocket. */
  const upsert = useCallback((t: Task) => {
    setTasks((old) => {
      const i = old.findIndex((o) => o.task_id === t.task_id);
      if (i >= 0) return old.map((o, k) => (k === i ? t : o));
      return matches(t, filtersRef.current) ? [t, ...old] : old;
    });
  }, []);

  useEffect(() => void load(filters), [filters]);
  useEffect(
    () =>
      connectLive(apiKey, {
        onTask: (t) => upsert(t),
        onState: setOnline,
        onReconnect: () => void load(filtersRef.current),
      }),
    [apiKey],
  );

  return (
    <>
      <SubmitPanel onSubmitted={upsert} />
      <section class="card" aria-labelledby="tasks-title">
        <div class="section-head">
          <h2 id="tasks-title">{w.tasks}</h2>
          <span class={online ? 'live on' : 'live'} role="status">{online ? w.live : w.offline}</span>
          <button type="button" class="ghost" onClick={() => load(filters)}>{w.refresh}</button>
        </div>
        <Filters value={filters} onChange={setFilters} />
        {error && <p class="error" role="alert">{error}</p>}
        <ul class="tasks" aria-busy={loading}>
          {tasks.map((t) => (
            <TaskRow key={t.task_id} task={t} onChange={upsert} onError={failed} />
          ))}
        </ul>
        {!loading && tasks.length === 0 && <p class="empty">{w.noTasks}</p>}
        {cursor && (
          <button type="button" class="ghost more" disabled={loading} onClick={() => load(filters, cursor)}>{w.loadMore}</button>
        )}
      </section>
    </>
  );
}
