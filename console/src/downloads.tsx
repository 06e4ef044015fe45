// The record of downloads in the console (docs/console.md#what-it-does): a task's, behind a disclosure
// in its row (read when opened, not for every row of the list), and on the operator's center the
// count and latest of the operator's own.
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { bytes, count, dateTime } from './format.js';
import { useWords } from './i18n.js';
import type { Download, DownloadCount, DownloadPage } from './types.js';

function DownloadList({ items, withFile = false }: { items: Download[]; withFile?: boolean }) {
  const w = useWords();
  return (
    <ul class="download-list">
      {items.map((d) => (
        <li key={d.download_id} class={d.complete ? 'complete' : 'incomplete'}>
          <time dateTime={d.at}>{dateTime(d.at, w.code)}</time>
          {withFile && <span class="file">{d.file}</span>}
          <span class="by">{w.downloadBy[d.by.kind]}{d.by.id ? ` ${d.by.id}` : ''}</span>
          {d.ip && <code class="ip">{d.ip}</code>}
          <span class="size">{bytes(d.bytes)}</span>
          {d.range && <code class="range">{d.range}</code>}
          {!d.complete && <span class="badge failed">{w.downloadIncomplete}</span>}
        </li>
      ))}
    </ul>
  );
}

/** One task's downloads, read when the disclosure opens (project key). */
export function TaskDownloads({ taskId, onError }: { taskId: string; onError: (e: unknown) => void }) {
  const w = useWords();
  const [items, setItems] = useState<Download[] | null>(null);
  const open = async (e: Event) => {
    if (!(e.currentTarget as HTMLDetailsElement).open) return;
    try {
      setItems((await getJson<DownloadPage>(`/v1/tasks/${encodeURIComponent(taskId)}/downloads?limit=20`)).items);
    } catch (err) {
      onError(err);
    }
  };
  return (
    <details class="task-downloads" onToggle={open}>
      <summary>{w.downloads}</summary>
      {items && (items.length === 0 ? <p class="empty">{w.noDownloads}</p> : <DownloadList items={items} />)}
    </details>
  );
}

/** The operator's own: how many, and the latest few (an operator session's token). */
export function MyDownloads({ onError }: { onError: (e: unknown) => void }) {
  const w = useWords();
  const [total, setTotal] = useState<DownloadCount | null>(null);
  const [items, setItems] = useState<Download[]>([]);
  useEffect(() => {
    Promise.all([getJson<DownloadCount>('/v1/downloads/count'), getJson<DownloadPage>('/v1/downloads?limit=10')])
      .then(([c, page]) => {
        setTotal(c);
        setItems(page.items);
      })
      .catch(onError);
  }, []);
  if (!total) return null;
  return (
    <section class="card" aria-labelledby="my-downloads-title">
      <div class="section-head">
        <h2 id="my-downloads-title">{w.downloadHistory}</h2>
        <span class="download-count" role="status">{w.downloadCount(`${count(total.count, w.code)}${total.more ? '+' : ''}`)}</span>
      </div>
      {items.length > 0 && <DownloadList items={items} withFile />}
    </section>
  );
}
