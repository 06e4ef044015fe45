// Live task events over GET /v1/ws (docs/api.md#get-v1ws), subscribed to the whole project ("*"). The key
// rides in the Sec-WebSocket-Protocol header ("bearer.<key>" beside "download-center"), which a
// browser can set and which no address bar, history or access log shows; `?access_token=` is not used.
// A dropped connection is opened again with backoff; on reconnect the server sends the current
// state of every active task, and the page re-reads its list so nothing that ended meanwhile is missed.
import type { Task, TaskEvent } from './types.js';

/** T: the task as the key reads it, Task with a project key, OperatorTask with an operator token. */
export interface LiveHandlers<T = Task> {
  onTask(task: T, event: TaskEvent['event']): void;
  onState(open: boolean): void;
  onReconnect(): void;
  /** The credential no longer opens the project (close code 4401): given, the socket is not reopened. */
  onEnded?(): void;
}

export function connectLive<T = Task>(key: string, h: LiveHandlers<T>): () => void {
  let ws: WebSocket | undefined;
  let stopped = false;
  let delay = 500;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let opened = false;

  const open = () => {
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/v1/ws`;
    ws = new WebSocket(url, ['download-center', `bearer.${key}`]);
    ws.onopen = () => {
      delay = 500;
      h.onState(true);
      if (opened) h.onReconnect();
      opened = true;
      ws?.send(JSON.stringify({ subscribe: '*' }));
    };
    ws.onmessage = (m) => {
      // Besides task events the server answers (un)subscriptions and errors, which carry no task.
      const msg = JSON.parse(String(m.data)) as { event?: TaskEvent['event']; task?: T };
      if (msg.event && msg.task) h.onTask(msg.task, msg.event);
    };
    ws.onclose = (e) => {
      h.onState(false);
      if (stopped) return;
      if (e.code === 4401 && h.onEnded) return h.onEnded();
      timer = setTimeout(open, delay);
      delay = Math.min(delay * 2, 15_000);
    };
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    ws?.close(1000, 'bye');
  };
}
