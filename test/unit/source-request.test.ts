// One source request (domain/source/client.ts): the URL reaches the source byte for byte with only
// page and page_size added, a total deadline bounds headers and body together (a trickling body
// fails within it, a slow first answer within the limits succeeds), and the probe heartbeats while
// it waits. Real HTTP servers that record the raw request line; the probe in a mock activity context.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors.js';
import { getPage, pageTarget, pageUrl } from '../../domain/source/client.js';
import { ConfigError, loadConfig } from '../../platform/config.js';
import { type FetchHarness, runActivity, startFetchHarness } from '../support/activity-env.js';
import { sourcePool } from '../support/source-server.js';

const { source, closeSources } = sourcePool();
let h: FetchHarness;

beforeAll(async () => {
  h = await startFetchHarness({ FETCH_HEARTBEAT_TIMEOUT_MS: '2000' });
});

afterAll(async () => {
  await closeSources();
  await h?.close();
});

const opts = { timeoutMs: 2000, deadlineMs: 4000, maxBytes: 1 << 20 };

async function failure(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe('pageTarget: the source URL byte for byte, plus page and page_size', () => {
  it.each([
    ['a signed query: %20, +, ~, a bare flag, a page=9 and a page_size already there', '/x/y?q=a%20b&plus=a+b&t=~me&flag&page=9&sig=AbC%2F&page_size=3', '/x/y?q=a%20b&plus=a+b&t=~me&flag&sig=AbC%2F&page=2&page_size=50'],
    ['bare page and page_size keys are ours too; pages, page_no and PAGE are not', '/p?page&pages=1&page_no=4&PAGE=1&page_size', '/p?pages=1&page_no=4&PAGE=1&page=2&page_size=50'],
    ['empty segments, empty values and order are kept', '/p?b=2&&a=&c', '/p?b=2&&a=&c&page=2&page_size=50'],
    ['no query', '/export', '/export?page=2&page_size=50'],
    ['an empty query', '/export?', '/export?page=2&page_size=50'],
    ['no path', '', '/?page=2&page_size=50'],
    ['the fragment is not sent', '/e?a=1#frag?page=7', '/e?a=1&page=2&page_size=50'],
    ["quotes, braces, pipes, '%' alone and dot segments are not touched", "/a/../b?q='x'&r={y}|z^&s=100%&u=%7e", "/a/../b?q='x'&r={y}|z^&s=100%&u=%7e&page=2&page_size=50"],
    ['what a request line cannot hold is UTF-8 escaped, only that', '/订单?name=客户 1&q="x"<y>', '/%E8%AE%A2%E5%8D%95?name=%E5%AE%A2%E6%88%B7%201&q=%22x%22%3Cy%3E&page=2&page_size=50'],
  ])('%s', (_name, rest, want) => {
    expect(pageTarget(`http://src.example:8443${rest}`, 2, 50)).toEqual({ origin: 'http://src.example:8443', path: want });
  });

  it('takes the origin from the URL parser, as the allow-list check did', () => {
    expect(pageTarget('HTTP://Src.Example:80/a?x=1', 0, 1)).toEqual({ origin: 'http://src.example', path: '/a?x=1&page=0&page_size=1' });
    expect(pageUrl('https://src.example/a?x=%20', 0, 1)).toBe('https://src.example/a?x=%20&page=0&page_size=1');
  });

  it('sends exactly that request target to a real server (no re-encoding on the way)', async () => {
    const src = await source({ total: 3 });
    const query = "?q=a%20b&plus=a+b&t=~me&flag&page=9&quote='x'&sig=AbC%2F%3D&page_size=7";
    const page = await getPage(`${src.url}${query}`, 0, 1, opts);
    expect(page.total).toBe(3);
    expect(src.requests.at(-1)!.rawUrl).toBe("/export?q=a%20b&plus=a+b&t=~me&flag&quote='x'&sig=AbC%2F%3D&page=0&page_size=1");
  });
});

describe('deadline: headers and body together', () => {
  it('fails a body trickling one byte every 100 ms at the deadline, as a transient source_unreachable naming it', async () => {
    const src = await source({ total: 50, trickle: () => ({ bytes: 1, intervalMs: 100 }) });
    const started = Date.now();
    const err = await failure(getPage(src.url, 0, 50, { timeoutMs: 500, deadlineMs: 1500, maxBytes: 1 << 20 }));
    const took = Date.now() - started;
    expect(err.code).toBe('source_unreachable');
    expect(err.retryable).toBe(true);
    expect(err.message).toBe('source did not finish answering page 0 (page_size 50) within 1500 ms (SOURCE_REQUEST_DEADLINE_MS)');
    // the idle limit (500 ms) never fired: a byte came every 100 ms; the deadline did, on time
    expect(took).toBeGreaterThanOrEqual(1450);
    expect(took).toBeLessThan(2500);
  });

  it('also bounds the wait for the headers', async () => {
    const src = await source({ total: 1, delayMs: () => 3000 });
    const err = await failure(getPage(src.url, 0, 1, { timeoutMs: 2500, deadlineMs: 1000, maxBytes: 1 << 20 }));
    expect(err.message).toContain('within 1000 ms (SOURCE_REQUEST_DEADLINE_MS)');
  });

  it('lets an answer through that is slow but within both limits, and a trickle that ends in time', async () => {
    const slow = await source({ total: 2, delayMs: () => 1200 });
    expect((await getPage(slow.url, 0, 1, { timeoutMs: 2000, deadlineMs: 3000, maxBytes: 1 << 20 })).total).toBe(2);
    const trickling = await source({ total: 2, trickle: () => ({ bytes: 20, intervalMs: 50 }) });
    expect((await getPage(trickling.url, 0, 2, { timeoutMs: 2000, deadlineMs: 3000, maxBytes: 1 << 20 })).data).toHaveLength(2);
  });

  it('keeps the idle limit of each phase: a stalled body fails at SOURCE_TIMEOUT_MS, long before the deadline', async () => {
    const src = await source({ total: 50, trickle: () => ({ bytes: 5, intervalMs: 3000 }) });
    const started = Date.now();
    const err = await failure(getPage(src.url, 0, 50, { timeoutMs: 500, deadlineMs: 10_000, maxBytes: 1 << 20 }));
    expect(err.code).toBe('source_unreachable');
    expect(err.message).not.toContain('SOURCE_REQUEST_DEADLINE_MS');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('reports a cancellation as the cancellation, not as a deadline', async () => {
    const src = await source({ total: 50, trickle: () => ({ bytes: 1, intervalMs: 100 }) });
    const ctl = new AbortController();
    const reason = new Error('cancelled by the test');
    setTimeout(() => ctl.abort(reason), 300);
    await expect(getPage(src.url, 0, 50, { timeoutMs: 1000, deadlineMs: 5000, maxBytes: 1 << 20 }, ctl.signal)).rejects.toBe(reason);
  });

  it('closes the connection of a trickling body at once when the request is aborted', async () => {
    const src = await source({ total: 50, trickle: () => ({ bytes: 1, intervalMs: 100 }) });
    const ctl = new AbortController();
    const answer = getPage(src.url, 0, 50, { timeoutMs: 1000, deadlineMs: 10_000, maxBytes: 1 << 20 }, ctl.signal).catch(() => {});
    await expect.poll(() => src.requests.length).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    const abortedAt = Date.now();
    ctl.abort(new Error('cancelled'));
    await answer;
    await expect.poll(() => src.aborted.length, { timeout: 1000, interval: 20 }).toBe(1);
    expect(src.aborted[0]!.at - abortedAt).toBeLessThan(500);
  });

  it('fails a body slower than the minimum rate over a window, long before the idle limit and the deadline', async () => {
    // 10 bytes every 200 ms: 50 bytes/s, never idle for the 2 s idle limit.
    const src = await source({ total: 50, trickle: () => ({ bytes: 10, intervalMs: 200 }) });
    const started = Date.now();
    const err = await failure(getPage(src.url, 0, 50, { timeoutMs: 2000, deadlineMs: 20_000, maxBytes: 1 << 20, minBytesPerSecond: 1000, rateWindowMs: 500 }));
    expect(err.code).toBe('source_unreachable');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('slower than 1000 bytes/s over 500 ms (SOURCE_MIN_BYTES_PER_SECOND)');
    expect(Date.now() - started).toBeLessThan(1500);
    await expect.poll(() => src.aborted.length, { timeout: 1000, interval: 20 }).toBe(1);
  });

  it('lets a body through that keeps above the minimum rate', async () => {
    const src = await source({ total: 20, trickle: () => ({ bytes: 200, intervalMs: 50 }) });
    const page = await getPage(src.url, 0, 20, { timeoutMs: 2000, deadlineMs: 20_000, maxBytes: 1 << 20, minBytesPerSecond: 1000, rateWindowMs: 300 });
    expect(page.data).toHaveLength(20);
  });
});

describe('probeSource', () => {
  it('heartbeats while the first answer takes longer than the heartbeat timeout', async () => {
    // 2000 ms is FETCH_HEARTBEAT_TIMEOUT_MS's minimum; the first answer takes 3 s.
    const src = await source({ total: 7, delayMs: (r) => (r.pageSize === 1 ? 3000 : 0) });
    const taskId = await h.newTask(src.url, { probe: false });
    const run = runActivity({ heartbeatTimeoutMs: 2000 }, () => h.activities.probeSource({ taskId }));
    const started = Date.now();
    const beats: number[] = [];
    run.env.on('heartbeat', () => beats.push(Date.now() - started));
    expect(await run.result).toMatchObject({ total: 7 });
    expect(beats.length).toBeGreaterThanOrEqual(2);
    // no gap between two heartbeats (or before the first) comes near the 2 s timeout
    const gaps = beats.map((t, i) => t - (beats[i - 1] ?? 0));
    expect(Math.max(...gaps)).toBeLessThan(1500);
  });
});

describe('config', () => {
  it('defaults SOURCE_REQUEST_DEADLINE_MS to max(120 s, 2 × SOURCE_TIMEOUT_MS) and refuses one below SOURCE_TIMEOUT_MS', () => {
    expect(loadConfig({}).SOURCE_REQUEST_DEADLINE_MS).toBe(120_000);
    expect(loadConfig({ SOURCE_TIMEOUT_MS: '90000' }).SOURCE_REQUEST_DEADLINE_MS).toBe(180_000);
    expect(loadConfig({ SOURCE_TIMEOUT_MS: '2000', SOURCE_REQUEST_DEADLINE_MS: '3000' }).SOURCE_REQUEST_DEADLINE_MS).toBe(3000);
    expect(() => loadConfig({ SOURCE_TIMEOUT_MS: '5000', SOURCE_REQUEST_DEADLINE_MS: '3000' })).toThrow(ConfigError);
    expect(() => loadConfig({ SOURCE_TIMEOUT_MS: '5000', SOURCE_REQUEST_DEADLINE_MS: '3000' })).toThrow(/SOURCE_REQUEST_DEADLINE_MS \(3000\) must be at least SOURCE_TIMEOUT_MS \(5000\)/);
    expect(() => loadConfig({ SOURCE_REQUEST_DEADLINE_MS: 'soon' })).toThrow(/SOURCE_REQUEST_DEADLINE_MS/);
  });

  it('reads WS_ALLOWED_ORIGINS as normalised origins, or * ; anything else stops start-up naming it', () => {
    expect(loadConfig({}).WS_ALLOWED_ORIGINS).toEqual([]);
    expect(loadConfig({ WS_ALLOWED_ORIGINS: ' https://Console.Example.com:443 , http://127.0.0.1:3000,*' }).WS_ALLOWED_ORIGINS).toEqual([
      'https://console.example.com',
      'http://127.0.0.1:3000',
      '*',
    ]);
    for (const bad of ['console.example.com', 'https://a.example/path', 'ftp://a.example', 'https://u:p@a.example', 'null']) {
      expect(() => loadConfig({ WS_ALLOWED_ORIGINS: bad })).toThrow(/WS_ALLOWED_ORIGINS/);
    }
  });
});
