// The Download Center client: typed calls (openapi-fetch over the generated schema.d.ts) and the
// few things a caller would otherwise write each time: paging, waiting, streaming a download to
// disk with its checksum checked, and watching events over a WebSocket that reconnects.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import createFetchClient, { type Client } from 'openapi-fetch';
import { DownloadCenterError } from './errors.js';
import type { components, paths } from './schema.js';
import { type TaskEvent, type WatchOptions, watchEvents } from './watch.js';

export type Task = components['schemas']['Task'];
export type TaskStatus = Task['status'];
export type SubmitBody = paths['/v1/tasks']['post']['requestBody']['content']['application/json'];
export type ListQuery = NonNullable<paths['/v1/tasks']['get']['parameters']['query']>;
export type TaskPage = components['schemas']['TaskPage'];
export type OperatorSession = components['schemas']['OperatorSession'];
export type Download = components['schemas']['Download'];
export type DownloadQuery = NonNullable<paths['/v1/downloads']['get']['parameters']['query']>;
export type Usage = components['schemas']['Usage'];
export type UsageDay = components['schemas']['UsageDay'];
export type OperatorSessionBody = paths['/v1/operator-sessions']['post']['requestBody']['content']['application/json'];

export interface ClientOptions {
  /** Where the API answers, e.g. http://localhost:8080 (PUBLIC_BASE_URL). */
  baseUrl: string;
  /**
   * The project's api_key, or an operator session's token (createOperatorSession): with that, the
   * same calls see and act on that operator's tasks only (docs/api.md#what-an-operator-token-may-do).
   */
  apiKey: string;
  /** A fetch to use instead of the global one (proxies, tests). */
  fetch?: (input: Request) => Promise<Response>;
}

export interface WaitOptions {
  /** Give up with an error after this long (default: wait for ever). */
  timeoutMs?: number;
  /** How often the task is read (default 1000 ms). */
  intervalMs?: number;
  signal?: AbortSignal;
  /** Called with each state read, e.g. to show progress. */
  onProgress?: (task: Task) => void;
}

export const FINAL_STATUSES: readonly TaskStatus[] = ['succeeded', 'failed', 'cancelled', 'expired'];

type Result<T> = { data?: T; error?: unknown; response: Response };

/** Cursor pages from `first` on, each fetched by `get`, until one has no next_cursor. */
async function* paged<P extends { next_cursor?: string | null }>(first: string | undefined, get: (cursor: string | undefined) => Promise<P>): AsyncGenerator<P> {
  let cursor = first;
  do {
    const page = await get(cursor);
    yield page;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}

export class DownloadCenter {
  /** The typed openapi-fetch client, for every endpoint of the API (paths of GET /openapi.json). */
  readonly api: Client<paths>;
  private readonly baseUrl: string;
  private readonly apiKey: string;

  constructor(opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.apiKey = opts.apiKey;
    this.api = createFetchClient<paths>({
      baseUrl: this.baseUrl,
      headers: { authorization: `Bearer ${opts.apiKey}` },
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
    });
  }

  /** POST /v1/tasks: a new task (202) or, for a repeated request, the existing one (200). */
  async submit(body: SubmitBody, opts: { idempotencyKey?: string } = {}): Promise<Task> {
    const headers = opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {};
    return ok(await this.api.POST('/v1/tasks', { body, params: { header: headers } }));
  }

  async get(taskId: string): Promise<Task> {
    return ok(await this.api.GET('/v1/tasks/{task_id}', { params: { path: { task_id: taskId } } }));
  }

  /** The project's tasks, newest first, page after page until the cursor runs out. */
  async *list(query: ListQuery = {}): AsyncGenerator<Task> {
    for await (const page of this.pages(query)) yield* page.items;
  }

  /** The same as pages of up to `limit` tasks, with each page's next_cursor. */
  async *pages(query: ListQuery = {}): AsyncGenerator<TaskPage> {
    yield* paged(query.cursor, async (cursor): Promise<TaskPage> => ok(await this.api.GET('/v1/tasks', { params: { query: { ...query, cursor } } })));
  }

  cancel(taskId: string): Promise<Task> {
    return this.act('cancel', taskId);
  }

  retry(taskId: string): Promise<Task> {
    return this.act('retry', taskId);
  }

  pause(taskId: string): Promise<Task> {
    return this.act('pause', taskId);
  }

  resume(taskId: string): Promise<Task> {
    return this.act('resume', taskId);
  }

  /**
   * The record of downloads (docs/downloads.md), newest first, page after page: the project's (an
   * operator token: its own), since a time if given.
   */
  async *downloads(query: DownloadQuery = {}): AsyncGenerator<Download> {
    for await (const page of paged(query.cursor, async (cursor) => ok(await this.api.GET('/v1/downloads', { params: { query: { ...query, cursor } } })))) yield* page.items;
  }

  /** The downloads of one task's files, newest first (project key). */
  async *taskDownloads(taskId: string): AsyncGenerator<Download> {
    const get = async (cursor: string | undefined) => ok(await this.api.GET('/v1/tasks/{task_id}/downloads', { params: { path: { task_id: taskId }, query: { limit: 100, cursor } } }));
    for await (const page of paged(undefined, get)) yield* page.items;
  }

  /**
   * GET /v1/usage (project key): each UTC day from `from` to `to` (YYYY-MM-DD, both included, at
   * most 366 days; days without use hold zeros) and the bytes the project stores now.
   */
  async usage(from: string, to: string): Promise<Usage> {
    return ok(await this.api.GET('/v1/usage', { params: { query: { from, to } } }));
  }

  /** POST /v1/operator-sessions (project key): a token and a url for one operator; the token is shown this once. */
  async createOperatorSession(body: OperatorSessionBody): Promise<OperatorSession> {
    return ok(await this.api.POST('/v1/operator-sessions', { body }));
  }

  /** DELETE /v1/operator-sessions/{session_id} (project key): the session ends at once. */
  async revokeOperatorSession(sessionId: string): Promise<void> {
    const { response, error } = await this.api.DELETE('/v1/operator-sessions/{session_id}', { params: { path: { session_id: sessionId } } });
    if (!response.ok) throw new DownloadCenterError(response.status, (error as { error?: never } | undefined)?.error, response.headers.get('retry-after'));
  }

  /** The task once it is final (succeeded, failed, cancelled or expired); a failed task is returned, not thrown. */
  async waitUntilDone(taskId: string, opts: WaitOptions = {}): Promise<Task> {
    const deadline = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs;
    for (;;) {
      const task = await this.get(taskId);
      opts.onProgress?.(task);
      if (FINAL_STATUSES.includes(task.status)) return task;
      if (Date.now() >= deadline) throw new Error(`task ${taskId} is still ${task.status} after ${opts.timeoutMs} ms`);
      await sleep(Math.min(opts.intervalMs ?? 1000, deadline - Date.now()), opts.signal);
    }
  }

  /**
   * Task events from the WebSocket: of one task (ending after its final event) or of every task of
   * the project ("*", until `signal` aborts or the loop breaks). Reconnects with backoff.
   */
  watch(target: string = '*', opts: WatchOptions = {}): AsyncGenerator<TaskEvent> {
    return watchEvents(this.baseUrl, this.apiKey, target, opts);
  }

  /**
   * Streams the task's file (the single file, or the zip of all parts) to a file path, a Node
   * Writable or a web WritableStream, and checks it against the SHA-256 the API sends. A download
   * to a path that fails leaves no partial file.
   */
  async download(taskId: string, to: string | Writable | WritableStream<Uint8Array>, opts: { signal?: AbortSignal } = {}): Promise<{ bytes: number; sha256: string }> {
    const { data, error, response } = await this.api.GET('/v1/tasks/{task_id}/download', {
      params: { path: { task_id: taskId } },
      parseAs: 'stream',
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    if (!response.ok || !data) throw await DownloadCenterError.from(response, error);
    const expected = response.headers.get('x-content-sha256');
    const hash = createHash('sha256');
    let bytes = 0;
    const count = (chunk: Uint8Array) => {
      hash.update(chunk);
      bytes += chunk.byteLength;
    };
    try {
      if (to instanceof WritableStream) {
        await data.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ transform: (c, ctl) => (count(c), ctl.enqueue(c)) })).pipeTo(to);
      } else {
        const tap = new Transform({ transform: (c: Buffer, _e, done) => (count(c), done(null, c)) });
        const sink = typeof to === 'string' ? createWriteStream(to) : to;
        await pipeline(Readable.fromWeb(data as import('node:stream/web').ReadableStream<Uint8Array>), tap, sink);
      }
      const sha256 = hash.digest('hex');
      if (expected && expected !== sha256) throw new Error(`the download of ${taskId} does not match its SHA-256 (${expected}); got ${sha256}`);
      return { bytes, sha256 };
    } catch (err) {
      if (typeof to === 'string') await rm(to, { force: true });
      throw err;
    }
  }

  private async act(action: 'cancel' | 'retry' | 'pause' | 'resume', taskId: string): Promise<Task> {
    return ok(await this.api.POST(`/v1/tasks/{task_id}/${action}`, { params: { path: { task_id: taskId } } }));
  }
}

/** The data of a 2xx answer; any other answer throws its error envelope as a DownloadCenterError. */
function ok<T>(result: Result<T>): T {
  if (result.response.ok && result.data !== undefined) return result.data;
  throw new DownloadCenterError(result.response.status, (result.error as { error?: never } | undefined)?.error, result.response.headers.get('retry-after'));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, Math.max(0, ms));
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}
