// Our snappy compressor (domain/formats/parquet/snappy.ts) against hyparquet's decompressor: every
// input comes back byte for byte, across the 64 KiB blocks, long matches and incompressible runs.
import fc from 'fast-check';
import { snappyUncompress } from 'hyparquet/src/snappy.js';
import { describe, expect, it } from 'vitest';
import { snappyCompress } from '../../domain/formats/parquet/snappy.js';

const roundTrip = (input: Uint8Array, work?: { room: Buffer }) => {
  const out = new Uint8Array(input.length);
  snappyUncompress(snappyCompress(input, work), out);
  return Buffer.from(out).equals(Buffer.from(input));
};

describe('snappy', () => {
  it('gives back what it compressed', () => {
    const pieces = fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 9 }), fc.integer({ min: 1, max: 20_000 })).map(([b, n]) => Buffer.concat(Array<Uint8Array>(n).fill(b))));
    fc.assert(fc.property(fc.array(pieces, { maxLength: 12 }), (ps) => roundTrip(Buffer.concat(ps))), { numRuns: 300 });
  });

  it('gives back each page when one working buffer serves them all, bigger and smaller', () => {
    const work = { room: Buffer.alloc(0) };
    const pages = fc.array(fc.uint8Array({ maxLength: 3000 }).map((b) => Buffer.concat([b, b, b])), { minLength: 2, maxLength: 8 });
    fc.assert(fc.property(pages, (ps) => ps.every((p) => roundTrip(p, work))), { numRuns: 200 });
    // A compressed page is its own: the next page does not write over it.
    const a = snappyCompress(Buffer.alloc(5000, 1), work);
    const copy = Buffer.from(a);
    snappyCompress(Buffer.alloc(5000, 2), work);
    expect(Buffer.from(a).equals(copy)).toBe(true);
  });

  it('compresses repeats and crosses blocks', () => {
    const text = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `SO${String(i).padStart(10, '0')}`).join(''));
    expect(roundTrip(text)).toBe(true);
    expect(snappyCompress(text).length).toBeLessThan(text.length / 2);
    const noise = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (Math.imul(i, 2654435761) >>> 13) & 0xff));
    expect(roundTrip(noise)).toBe(true);
    for (const n of [0, 1, 14, 15, 16, 65_535, 65_536, 65_537]) expect(roundTrip(Buffer.alloc(n, 7))).toBe(true);
  });
});
