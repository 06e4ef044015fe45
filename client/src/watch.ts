// Task events over the API's WebSocket (GET /v1/ws), as an async iterator that survives dropped
// connections: it reconnects with exponential backoff (with jitter) and subscribes again, and the
// server then sends the current state at once, so a consumer never misses the final state (it may
// see a state twice). The key travels in the Authorization header of the upgrade, never in the URL.
import WebSocket from 'ws';
import { DownloadCenterError } from './errors.js';
import type { components } from './schema.js';

export type TaskEvent = components['schemas']['TaskEvent'];

export interface WatchOptions {
  /** Stops watching: the iterator ends. */
  signal?: AbortSignal;
  /** End after the task's final event (succeeded, failed, cancelled, expired). Default: true for one task, never for "*". */
  untilDone?: boolean;
  /** First reconnect delay, doubled on each failed attempt up to maxDelayMs (defaults 250 and 30,000 ms). */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Give up (throw) after this many reconnects in a row that fail; default: never. */
  maxAttempts?: number;
  /** Told before each reconnect: for logs and tests. */
  onReconnect?: (attempt: number, delayMs: number) => void;
}

const FINAL = new Set(['task.succeeded', 'task.failed', 'task.cancelled', 'task.expired']);
/** Refusals of the upgrade that another attempt cannot fix. */
const FATAL_STATUS = new Set([400, 401, 403, 404, 426]);

type Frame = TaskEvent | { subscribed: string } | { unsubscribed: string } | { error: { code: string; message: string } };

export async function* watchEvents(baseUrl: string, apiKey: string, target: string, opts: WatchOptions = {}): AsyncGenerator<TaskEvent> {
  const url = new URL('/v1/ws', baseUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const untilDone = opts.untilDone ?? target !== '*';
  const initial = opts.initialDelayMs ?? 250;
  const max = opts.maxDelayMs ?? 30_000;

  const queue: TaskEvent[] = [];
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  let socket: WebSocket | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failedAttempts = 0;
  let stopped = false;

  const reconnect = () => {
    if (stopped || failure) return;
    failedAttempts += 1;
    if (opts.maxAttempts !== undefined && failedAttempts > opts.maxAttempts) {
      failure = new Error(`the WebSocket could not be reconnected in ${opts.maxAttempts} attempts`);
      return notify();
    }
    const ceiling = Math.min(max, initial * 2 ** (failedAttempts - 1));
    // Half fixed, half random: many clients dropped at once do not all come back at once.
    const delay = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
    opts.onReconnect?.(failedAttempts, delay);
    timer = setTimeout(connect, delay);
  };

  function connect() {
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${apiKey}` } });
    socket = ws;
    ws.on('open', () => ws.send(JSON.stringify({ subscribe: target })));
    ws.on('message', (data: WebSocket.RawData) => {
      let frame: Frame;
      try {
        frame = JSON.parse(data.toString()) as Frame;
      } catch {
        return;
      }
      if ('event' in frame) queue.push(frame);
      else if ('subscribed' in frame) failedAttempts = 0;
      else if ('error' in frame) failure = new DownloadCenterError(frame.error.code === 'not_found' ? 404 : 400, { ...frame.error, request_id: null });
      notify();
    });
    ws.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if (FATAL_STATUS.has(res.statusCode ?? 0)) {
          let body: { error?: { code?: string; message?: string } } | undefined;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            body = undefined;
          }
          failure = new DownloadCenterError(res.statusCode ?? 0, body?.error);
        }
        ws.terminate();
      });
    });
    // Every failure ends in 'close', where it is handled; without a listener 'error' would throw.
    ws.on('error', () => {});
    ws.on('close', () => {
      if (socket === ws) socket = undefined;
      reconnect();
      notify();
    });
  }

  const onAbort = () => notify();
  opts.signal?.addEventListener('abort', onAbort);
  try {
    connect();
    for (;;) {
      while (queue.length > 0) {
        const event = queue.shift()!;
        yield event;
        if (untilDone && FINAL.has(event.event) && event.task.task_id === target) return;
      }
      if (failure) throw failure;
      if (opts.signal?.aborted) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stopped = true;
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
    socket?.close(1000, 'done');
  }
}
