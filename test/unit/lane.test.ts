// A fetch lane's mechanics without a database or a source: where an attempt starts, which pages a
// piece holds, that only stored boundaries are checkpointed, how an attempt ends after a transient
// error, and a lane's requests (its politeness slot, cancellation with its grace, the page ahead).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DomainError } from '../../domain/errors.js';
import { holdsSlotForChunk, LaneRequests } from '../../domain/source/lane-requests.js';
import type { PageRequest } from '../../domain/source/polite.js';
import { LaneChunk, PROGRESS_EVERY_MS } from '../../domain/staging/lane.js';
import { PIECE_MAX_BYTES, PIECE_MAX_MS } from '../../domain/staging/pieces.js';

// 115 rows at page_size 10: 12 pages, the last one short; a lane of pages [4, 12), this chunk [6, 12).
const probed = { total: 115, pageSize: 10 };
const range = { laneFromPage: 4, fromPage: 6, toPage: 12 };
const page = (n: number) => Buffer.from(`page ${n}\n`);

/** A chunk with pages [chunk.next, to) added. */
function fetched(chunk: LaneChunk, to: number): LaneChunk {
  while (chunk.next < to) chunk.add(page(chunk.next));
  return chunk;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('LaneChunk: where an attempt starts', () => {
  it('starts at fromPage, or at the page an earlier attempt heartbeated', () => {
    expect(new LaneChunk(range, probed, undefined).next).toBe(6);
    const resumed = new LaneChunk(range, probed, { nextPage: 9 });
    expect([resumed.next, resumed.attemptFrom]).toEqual([9, 9]);
    expect(resumed.checkpoint()).toEqual({ nextPage: 9 });
  });

  it('never starts before fromPage, and ignores a checkpoint that names no page', () => {
    expect(new LaneChunk(range, probed, { nextPage: 2 }).next).toBe(6);
    for (const details of [null, 9, 'x', { nextPage: '9' }, { nextPage: 8.5 }, {}]) expect(new LaneChunk(range, probed, details).next).toBe(6);
  });

  it('wants the pages before toPage only', () => {
    const chunk = new LaneChunk(range, probed, undefined);
    expect([11, 12, 13].map((p) => chunk.wants(p))).toEqual([true, false, false]);
  });
});

describe('LaneChunk: pieces and the checkpoint', () => {
  it('holds the fetched pages as one piece from the last stored boundary, and checkpoints only stored ends', () => {
    const chunk = fetched(new LaneChunk(range, probed, undefined), 9);
    expect(chunk.checkpoint()).toEqual({ nextPage: 6 });
    const first = chunk.piece()!;
    expect([first.from, first.to, first.body.toString()]).toEqual([6, 9, 'page 6\npage 7\npage 8\n']);
    chunk.stored(first);
    expect(chunk.checkpoint()).toEqual({ nextPage: 9 });
    expect(chunk.piece()).toBeUndefined();

    fetched(chunk, 10);
    const second = chunk.piece()!;
    expect([second.from, second.to, second.body.toString()]).toEqual([9, 10, 'page 9\n']);
  });

  it('keeps a piece whose store failed, whole, for the next store', () => {
    const chunk = fetched(new LaneChunk(range, probed, undefined), 8);
    chunk.piece(); // its put failed: stored() never came
    const again = chunk.piece()!;
    expect([again.from, again.to, again.body.toString()]).toEqual([6, 8, 'page 6\npage 7\n']);
    expect(chunk.checkpoint()).toEqual({ nextPage: 6 });
  });

  it('refuses to count as stored a piece that is not the one waiting', () => {
    const chunk = fetched(new LaneChunk(range, probed, undefined), 8);
    const stale = chunk.piece()!;
    chunk.add(page(8));
    expect(() => chunk.stored(stale)).toThrow(/piece 6-8 is not the one waiting \(6-9\)/);
    expect(chunk.checkpoint()).toEqual({ nextPage: 6 });
  });

  it('has a piece due once it holds PIECE_MAX_BYTES or has waited PIECE_MAX_MS', () => {
    vi.useFakeTimers();
    const chunk = new LaneChunk(range, probed, undefined);
    expect(chunk.pieceDue()).toBe(false);
    chunk.add(page(6));
    vi.advanceTimersByTime(PIECE_MAX_MS - 1);
    expect(chunk.pieceDue()).toBe(false);
    vi.advanceTimersByTime(1);
    expect(chunk.pieceDue()).toBe(true);

    chunk.stored(chunk.piece()!);
    chunk.add(Buffer.alloc(PIECE_MAX_BYTES));
    expect(chunk.pieceDue()).toBe(true);
  });
});

describe('LaneChunk: progress and endings', () => {
  it("reports the lane's stored pages and rows from the lane's first page, at most every PROGRESS_EVERY_MS unless forced", () => {
    vi.useFakeTimers();
    const chunk = fetched(new LaneChunk(range, probed, undefined), 12);
    expect(chunk.progress(false)).toEqual({ pages: 2, rows: 20 }); // pages 4 and 5, stored by an earlier chunk
    chunk.stored(chunk.piece()!);
    expect(chunk.progress(false)).toBeUndefined();
    vi.advanceTimersByTime(PROGRESS_EVERY_MS);
    expect(chunk.progress(false)).toEqual({ pages: 8, rows: 75 }); // the last page holds 5 rows
    expect(chunk.progress(true)).toEqual({ pages: 8, rows: 75 });
  });

  it("returns the whole chunk's pages and rows when done", () => {
    expect(new LaneChunk(range, probed, { nextPage: 10 }).done()).toEqual({ pages: 6, rows: 55 });
  });

  describe('after a transient error', () => {
    const unreachable = DomainError.transient('source_unreachable', 'HTTP 500', 3000);

    it('returns the stored pages and the page to call again from, with the delay the source asked for', () => {
      const chunk = fetched(new LaneChunk(range, probed, undefined), 9);
      chunk.stored(chunk.piece()!);
      expect(chunk.afterTransient(unreachable, 1)).toEqual({ pages: 3, rows: 30, nextPage: 9, retryAfterMs: 3000 });
    });

    it('rethrows the error while the first page of the attempt has attempts left', () => {
      const chunk = new LaneChunk({ ...range, failedAttempts: 1, maxAttempts: 3 }, probed, { nextPage: 8 });
      const retryable = expect.objectContaining({ code: 'source_unreachable', retryable: true });
      expect(() => chunk.afterTransient(unreachable, 1)).toThrow(retryable);
      // No budget given: the activity's retry policy alone decides.
      expect(() => new LaneChunk(range, probed, undefined).afterTransient(unreachable, 50)).toThrow(retryable);
    });

    it('throws the same code non-retryable once the page has spent its budget', () => {
      const chunk = fetched(new LaneChunk({ ...range, failedAttempts: 1, maxAttempts: 3 }, probed, undefined), 8);
      chunk.piece(); // fetched but not stored: they do not count
      expect(() => chunk.afterTransient(unreachable, 2)).toThrow(expect.objectContaining({ name: 'DomainError', code: 'source_unreachable', message: 'HTTP 500', retryable: false }));
    });
  });
});

/** A source whose requests hang until their signal aborts; its leases say whether they were released. */
function stubSource() {
  const requests: PageRequest[] = [];
  const leases: Array<{ released: boolean; release(): Promise<void> }> = [];
  const hang = (r: PageRequest) => {
    requests.push(r);
    return new Promise<never>((_, reject) => r.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
  };
  return {
    requests,
    leases,
    async lease() {
      const lease = {
        released: false,
        async release() {
          lease.released = true;
        },
      };
      leases.push(lease);
      return lease;
    },
    get: hang,
    getBytes: hang,
  };
}

const target = { sourceUrl: 'http://source.test/rows', projectId: 'p', pageSize: 10 };

describe('LaneRequests', () => {
  it('holds one politeness slot for the whole chunk when there is no rps limit', async () => {
    expect(holdsSlotForChunk({ maxConcurrency: 2, rps: null })).toBe(true);
    expect(holdsSlotForChunk({ maxConcurrency: 2, rps: 5 })).toBe(false);

    const src = stubSource();
    const requests = new LaneRequests(src, { ...target, limits: { maxConcurrency: 2, rps: null }, bytes: true }, new AbortController().signal, async () => 0);
    await requests.open();
    void requests.ask(6);
    void requests.ask(7);
    expect(src.leases).toHaveLength(1);
    expect(src.requests.map((r) => [r.page, r.pageSize, r.lease])).toEqual([
      [6, 10, src.leases[0]],
      [7, 10, src.leases[0]],
    ]);
    await requests.close();
    expect(src.leases[0]!.released).toBe(true);
    expect(src.requests.every((r) => r.signal.aborted)).toBe(true);
  });

  it('takes a slot per request under an rps limit', async () => {
    const src = stubSource();
    const requests = new LaneRequests(src, { ...target, limits: { maxConcurrency: 2, rps: 5 }, bytes: false }, new AbortController().signal, async () => 0);
    await requests.open();
    void requests.ask(6);
    expect(src.leases).toHaveLength(0);
    expect(src.requests[0]!.lease).toBeUndefined();
    await requests.close();
  });

  it('asks nothing once cancelled, and lets the page in flight finish within the grace', async () => {
    const src = stubSource();
    const cancel = new AbortController();
    const requests = new LaneRequests(src, { ...target, limits: { maxConcurrency: 1, rps: 5 }, bytes: true }, cancel.signal, async () => 150);
    const inFlight = requests.ask(6)!;
    cancel.abort();
    expect(requests.ask(7)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 50));
    expect(src.requests[0]!.signal.aborted).toBe(false);
    await expect(inFlight).rejects.toThrow('aborted');
    expect(src.requests).toHaveLength(1);
    await requests.close();
  });

  it('drops the page asked ahead at once when the lane leaves on an error', async () => {
    const src = stubSource();
    const requests = new LaneRequests(src, { ...target, limits: { maxConcurrency: 1, rps: 5 }, bytes: true }, new AbortController().signal, async () => 60_000);
    void requests.ask(6); // abandoned: its rejection must not go unhandled
    requests.stopAhead();
    expect(src.requests[0]!.signal.aborted).toBe(true);
    await requests.close();
  });
});
