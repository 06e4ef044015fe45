// A real HTTP server speaking the source protocol, with knobs for the failures tests need.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface SourceRequest {
  page: number;
  pageSize: number;
  query: URLSearchParams;
  /** The request target exactly as it arrived on the request line (req.url). */
  rawUrl: string;
  /** Date.now() when the request arrived. */
  at: number;
}

export type Reply = { status: number; body: string; headers?: Record<string, string> } | undefined;

export interface SourceOptions {
  total: number;
  row?: (i: number) => Record<string, unknown>;
  /** Extra fields for the first (page_size=1) answer: template, header, footer. */
  firstExtras?: Record<string, unknown>;
  /** Delay before answering a request (the event loop stays free). */
  delayMs?: (req: SourceRequest) => number;
  /** Return a reply to override the normal answer for this request. */
  intercept?: (req: SourceRequest, n: number) => Reply;
  /** A promise to wait for before answering this request (a source held until the test lets it go), or undefined. */
  hold?: (req: SourceRequest) => Promise<void> | undefined;
  /** Send the normal answer's body `bytes` at a time, one piece every `intervalMs` (a trickling source). */
  trickle?: (req: SourceRequest) => { bytes: number; intervalMs: number } | undefined;
}

export const defaultRow = (i: number) => ({ id: i + 1, name: `客户 ${i + 1}`, amount: Math.round(i * 13.7) / 100, note: i % 7 === 0 ? 'a, "quoted" note' : '' });

export interface SourceServer {
  url: string;
  host: string;
  requests: SourceRequest[];
  /** Delayed or trickling requests whose client went away before the whole answer (e.g. a cancelled fetch); `at` is when. */
  aborted: Array<SourceRequest & { at: number }>;
  options: SourceOptions;
  /** The most requests that were in flight at once. */
  maxInFlight(): number;
  /** How many times each page (page_size > 1) was asked for. */
  pageCounts(): Map<number, number>;
  close(): Promise<void>;
}

export async function startSource(options: SourceOptions): Promise<SourceServer> {
  const requests: SourceRequest[] = [];
  const aborted: SourceServer['aborted'] = [];
  const row = () => options.row ?? defaultRow;
  let inFlight = 0;
  let maxInFlight = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const r: SourceRequest = { page: Number(url.searchParams.get('page')), pageSize: Number(url.searchParams.get('page_size')), query: url.searchParams, rawUrl: req.url ?? '', at: Date.now() };
    requests.push(r);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => (inFlight -= 1));
    const delay = options.delayMs?.(r) ?? 0;
    if (delay > 0) {
      let timer: NodeJS.Timeout | undefined;
      const gone = await Promise.race([
        new Promise<boolean>((resolve) => res.once('close', () => resolve(true))),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), delay))),
      ]);
      clearTimeout(timer);
      if (gone) return void aborted.push({ ...r, at: Date.now() });
    }
    const held = options.hold?.(r);
    if (held) {
      const gone = await Promise.race([held.then(() => false), new Promise<boolean>((resolve) => res.once('close', () => resolve(true)))]);
      if (gone) return void aborted.push({ ...r, at: Date.now() });
    }
    const override = options.intercept?.(r, requests.length);
    if (override) {
      res.writeHead(override.status, { 'content-type': 'application/json', ...override.headers });
      res.end(override.body);
      return;
    }
    const from = r.page * r.pageSize;
    const data = [];
    for (let i = from; i < Math.min(options.total, from + r.pageSize); i++) data.push(row()(i));
    const body = { total: options.total, data, ...(r.pageSize === 1 && r.page === 0 ? options.firstExtras : {}) };
    const slow = options.trickle?.(r);
    if (slow) return trickle(res, Buffer.from(JSON.stringify(body)), slow.bytes, slow.intervalMs, () => aborted.push({ ...r, at: Date.now() }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/export`,
    host: `127.0.0.1:${port}`,
    requests,
    aborted,
    options,
    maxInFlight: () => maxInFlight,
    pageCounts: () => {
      const counts = new Map<number, number>();
      for (const r of requests) if (r.pageSize !== 1) counts.set(r.page, (counts.get(r.page) ?? 0) + 1);
      return counts;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes `body` a few bytes at a time until done or until the client goes away (then `gone`). */
function trickle(res: ServerResponse, body: Buffer, bytes: number, intervalMs: number, gone: () => void): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
  res.flushHeaders();
  let at = 0;
  const timer = setInterval(() => {
    if (res.destroyed || at >= body.length) return void clearInterval(timer);
    res.write(body.subarray(at, (at += bytes)));
    if (at >= body.length) {
      clearInterval(timer);
      res.end();
    }
  }, intervalMs);
  res.once('close', () => {
    clearInterval(timer);
    if (!res.writableFinished) gone();
  });
}

/** Source servers started by one test file, closed together in its afterAll. */
export function sourcePool() {
  const started: SourceServer[] = [];
  return {
    async source(opts: SourceOptions): Promise<SourceServer> {
      const s = await startSource(opts);
      started.push(s);
      return s;
    },
    closeSources: () => Promise.all(started.map((s) => s.close())),
  };
}

/** The data requests (page_size > 1) a source had for one page. */
export const pageRequests = (src: SourceServer, page: number) => src.requests.filter((r) => r.pageSize !== 1 && r.page === page);
/** The one-row requests an export sends to learn the total (first, and again on a restart). */
export const probes = (src: SourceServer) => src.requests.filter((r) => r.pageSize === 1);

/**
 * For a 3000-row source: its total becomes 3100 at page 5 and, after the export restarted, 2950 at
 * page 7, so the run must fail with source_changed. `src` is the server it is given to.
 */
export const changesTwice = (src: () => SourceServer): SourceOptions['intercept'] => (r) => {
  const s = src();
  if (r.pageSize !== 1 && r.page === 5 && pageRequests(s, 5).length === 1) s.options.total = 3100;
  if (r.pageSize !== 1 && r.page === 7 && s.options.total === 3100 && probes(s).length === 2) s.options.total = 2950;
  return undefined;
};
