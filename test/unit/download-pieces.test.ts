// A resumed download's pieces (domain/downloads/resumed.ts): where each answer's bytes lay in the
// file, whether pieces cover it, and which piece completes it. The records themselves, through the
// routes: test/routes/downloads.test.ts; a real cut-short download resumed: test/e2e/downloads.test.ts.
import { describe, expect, it } from 'vitest';
import { completes, covers, pieceOf } from '../../domain/downloads/resumed.js';

describe('pieceOf', () => {
  it('starts a range at its first byte, with the bytes sent (fewer than asked when cut short)', () => {
    expect(pieceOf('bytes 100-199/1000', 40, 1000)).toEqual({ start: 100, bytes: 40 });
  });
  it('starts a whole answer at 0', () => {
    expect(pieceOf(null, 512, 1000)).toEqual({ start: 0, bytes: 512 });
  });
  it('is not a piece of this file when the sizes differ, or the text is not a Content-Range', () => {
    expect(pieceOf('bytes 0-9/999', 10, 1000)).toBeNull();
    expect(pieceOf('items 0-9/1000', 10, 1000)).toBeNull();
  });
});

describe('covers and completes', () => {
  const p = (start: number, bytes: number) => ({ start, bytes });
  it('covers with pieces in any order, overlapping or touching', () => {
    expect(covers([p(60, 40), p(0, 50), p(50, 10)], 100)).toBe(true);
    expect(covers([p(40, 70), p(0, 45)], 100)).toBe(true);
  });
  it('does not cover with a gap, a missing start or a missing end', () => {
    expect(covers([p(0, 50), p(51, 49)], 100)).toBe(false);
    expect(covers([p(1, 99)], 100)).toBe(false);
    expect(covers([p(0, 99)], 100)).toBe(false);
    expect(covers([], 100)).toBe(false);
  });
  it('completes only with the piece that closes the last gap', () => {
    expect(completes([p(0, 50)], p(50, 50), 100)).toBe(true);
    expect(completes([p(0, 50)], p(60, 40), 100)).toBe(false);
    // Already held: fetching a part again completes nothing.
    expect(completes([p(0, 100)], p(10, 10), 100)).toBe(false);
  });
});
