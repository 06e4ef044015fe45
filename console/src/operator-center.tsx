// The operator's own tasks, newest first, kept current by the WebSocket: progress, downloads, and the
// actions the session permits. Nothing of other operators or of the project (no form, schedules,
// filters by operator). A 401 from the API or a socket closed with 4401 turns the page into the
// ended-session page, and the token is forgotten.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, getJson, session } from './api.js';
import { dateTime } from './format.js';
import { I18n, type Lang, words } from './i18n.js';
import { connectLive } from './live.js';
import { MyDownloads } from './downloads.js';
import { type Action, TaskRow } from './task-row.js';
import type { OperatorTask, OperatorTaskPage } from './types.js';

export interface SessionInfo {
  operatorId: string;
  permissions: string[];
  expiresAt: string;
}

/** The permission each action needs (api/middleware/operator.ts): resume goes with pause. */
const NEEDS: Record<Action, string> = { cancel: 'cancel', retry: 'retry', pause: 'pause', resume: 'pause' };

export function Ended({ lang }: { lang: Lang }) {
  const w = words[lang];
  return (
    <>
      <header class="top">
        <h1>{w.title}</h1>
      </header>
      <main>
        <section class="card ended" role="alert">
          <h2>{w.sessionEnded}</h2>
          <p>{w.sessionEndedHint}</p>
        </section>
      </main>
    </>
  );
}

export function OperatorCenter({ lang, token, info }: { lang: Lang; token: string; info: SessionInfo }) {
  const w = words[lang];
  const [tasks, setTasks] = useState<OperatorTask[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [ended, setEnded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [online, setOnline] = useState(false);

  const failed = (err: unknown) => {
    if (err instanceof ApiError && err.status === 401) {
      session.clear();
      return setEnded(true);
    }
    // The server's sentences are English: a Chinese page names the code in a sentence of its own.
    setError(w.requestFailed ? w.requestFailed(err instanceof ApiError ? err.code : 'network') : (err as Error).message);
  };
  const load = useCallback(async (after: string | null = null) => {
    setLoading(true);
    try {
      const page = await getJson<OperatorTaskPage>(`/v1/tasks?limit=20${after ? `&cursor=${encodeURIComponent(after)}` : ''}`);
      setTasks((old) => (after ? [...old, ...page.items.filter((t) => !old.some((o) => o.task_id === t.task_id))] : page.items));
      setCursor(page.next_cursor);
      setError(null);
    } catch (err) {
      failed(err);
    } finally {
      setLoading(false);
    }
  }, []);
  // The server sends this operator's tasks only; a new one goes on top (newest first).
  const upsert = useCallback((t: OperatorTask) => setTasks((old) => (old.some((o) => o.task_id === t.task_id) ? old.map((o) => (o.task_id === t.task_id ? t : o)) : [t, ...old])), []);

  useEffect(() => void load(), []);
  useEffect(() => {
    if (ended) return;
    return connectLive<OperatorTask>(token, { onTask: upsert, onState: setOnline, onReconnect: () => void load(), onEnded: () => (session.clear(), setEnded(true)) });
  }, [token, ended]);

  if (ended) return <Ended lang={lang} />;
  return (
    <I18n.Provider value={w}>
      <header class="top">
        <h1>{w.title}</h1>
        <div class="top-tools who">
          <span>{w.signedInAs(info.operatorId)}</span>
          {info.expiresAt && (
            <span class="until">
              {w.until} <time dateTime={info.expiresAt}>{dateTime(info.expiresAt, w.code)}</time>
            </span>
          )}
        </div>
      </header>
      <main>
        <section class="card" aria-labelledby="tasks-title">
          <div class="section-head">
            <h2 id="tasks-title">{w.myDownloads}</h2>
            <span class={online ? 'live on' : 'live'} role="status">{online ? w.live : w.offline}</span>
            <button type="button" class="ghost" onClick={() => load()}>{w.refresh}</button>
          </div>
          {error && <p class="error" role="alert">{error}</p>}
          <ul class="tasks" aria-busy={loading}>
            {tasks.map((t) => (
              <TaskRow key={t.task_id} task={t} onChange={upsert} onError={failed} can={(a) => info.permissions.includes(NEEDS[a])} mine />
            ))}
          </ul>
          {!loading && tasks.length === 0 && <p class="empty">{w.noTasks}</p>}
          {cursor && (
            <button type="button" class="ghost more" disabled={loading} onClick={() => load(cursor)}>{w.loadMore}</button>
          )}
        </section>
        <MyDownloads onError={failed} />
      </main>
    </I18n.Provider>
  );
}
