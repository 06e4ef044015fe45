// The merge's choice of staged pieces: every page exactly once, in order, whatever a stalled
// attempt left beside its retry's pieces; incomplete staging is found, not papered over.
import { describe, expect, it } from 'vitest';
import { type Piece, parsePiece, pieceChain, READ_AHEAD, READ_AHEAD_BYTES, readAhead } from '../../domain/staging/pieces.js';
import { MemoryStorage } from '../../platform/storage/memory.js';

const piece = (from: number, to: number): Piece => ({ key: `staging/t/pages/${String(from).padStart(8, '0')}-${String(to).padStart(8, '0')}.csv`, from, to });
const ranges = (chain: Piece[] | null) => chain?.map((p) => [p.from, p.to]) ?? null;

describe('pieceChain', () => {
  it('follows pieces that meet end to start, whatever order they are listed in', () => {
    expect(ranges(pieceChain([piece(5, 9), piece(0, 3), piece(3, 5), piece(9, 10)], 10))).toEqual([[0, 3], [3, 5], [5, 9], [9, 10]]);
    expect(pieceChain([], 0)).toEqual([]);
  });

  it('covers each page once when a stalled attempt left pieces overlapping its retry', () => {
    // The retry resumed at 3 and cut its pieces elsewhere than the stalled attempt, which went on to 7.
    const chain = pieceChain([piece(0, 3), piece(3, 5), piece(5, 7), piece(3, 4), piece(4, 8), piece(8, 10)], 10);
    expect(ranges(chain)).toEqual([[0, 3], [3, 4], [4, 8], [8, 10]]);
  });

  it('finds no chain when a page is missing or a piece runs past the end', () => {
    expect(pieceChain([piece(0, 3), piece(4, 10)], 10)).toBeNull();
    expect(pieceChain([piece(0, 3), piece(3, 9)], 10)).toBeNull();
    expect(pieceChain([piece(0, 3), piece(3, 11)], 10)).toBeNull();
  });

  it('reads a piece from its key and ignores other names', () => {
    expect(parsePiece('staging/t/pages/00000012-00000020.ndjson')).toEqual({ key: 'staging/t/pages/00000012-00000020.ndjson', from: 12, to: 20 });
    // a single page, as stored before pieces: an export in flight across the upgrade still merges
    expect(parsePiece('staging/t/pages/00000012.csv')).toEqual({ key: 'staging/t/pages/00000012.csv', from: 12, to: 13 });
    const legacy = ['00000000.csv', '00000001.csv'].map((name) => parsePiece(`staging/t/pages/${name}`)!);
    expect(ranges(pieceChain([...legacy, piece(2, 10)], 10))).toEqual([[0, 1], [1, 2], [2, 10]]);
    expect(parsePiece('staging/t/pages/00000012-00000012.csv')).toBeNull();
    expect(parsePiece('staging/t/meta.json')).toBeNull();
  });
});

describe('readAhead', () => {
  it('reads fewer pieces ahead once it has seen big ones (a source of big pages)', async () => {
    const storage = new MemoryStorage();
    const chain = Array.from({ length: 8 }, (_, i) => piece(i, i + 1));
    // The first piece is small; the others each hold half the read-ahead budget.
    for (const p of chain) await storage.putBuffer(p.key, Buffer.alloc(p.from === 0 ? 10 : READ_AHEAD_BYTES / 2, p.from));
    let asked = 0;
    const get = storage.getBuffer.bind(storage);
    storage.getBuffer = (key: string) => {
      asked += 1;
      return get(key);
    };
    const ahead: number[] = [];
    for await (const { piece: p, bytes } of readAhead(storage, chain, new AbortController().signal)) {
      expect(bytes[0]).toBe(p.from);
      ahead.push(asked - (p.from + 1)); // asked for beyond the piece handed over
    }
    // READ_AHEAD asked for before any size was known; two at most once the big pieces are seen.
    expect(ahead[0]).toBe(READ_AHEAD);
    expect(Math.max(...ahead.slice(2))).toBe(2);
  });

  it('hands the pieces over in order with READ_AHEAD reads in flight at most, and stops at an abort', async () => {
    const storage = new MemoryStorage();
    const chain = Array.from({ length: 12 }, (_, i) => piece(i, i + 1));
    for (const p of chain) await storage.putBuffer(p.key, Buffer.from(`piece ${p.from}`));
    let inFlight = 0;
    let most = 0;
    const get = storage.getBuffer.bind(storage);
    storage.getBuffer = async (key: string) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 2));
      inFlight -= 1;
      return get(key);
    };
    const got: string[] = [];
    for await (const { piece: p, bytes } of readAhead(storage, chain, new AbortController().signal)) {
      got.push(`${p.from}:${bytes.toString()}`);
      await new Promise((r) => setTimeout(r, 5)); // the writer is slower than the reads
    }
    expect(got).toEqual(chain.map((p) => `${p.from}:piece ${p.from}`));
    expect(most).toBe(READ_AHEAD);

    const abort = new AbortController();
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const { piece: p } of readAhead(storage, chain, abort.signal)) {
          seen.push(p.from);
          if (p.from === 2) abort.abort(new Error('cancelled'));
        }
      })(),
    ).rejects.toThrow('cancelled');
    expect(seen).toEqual([0, 1, 2]);
  });
});
