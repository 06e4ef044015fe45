// The design's lane plan (model/plan.ts): pure arithmetic, checked around the 400-page boundary.
import { describe, expect, it } from 'vitest';
import { chunkRange, expectedRows, LINEAR_MAX_PAGES, MAX_LANES, pageCount, planLanes, planSheetLanes, rowsInPages } from '../../model/plan.js';

/** Every page exactly once, lanes in order and contiguous: the merge keeps the global order. */
function expectCovers(total: number, pageSize: number) {
  const lanes = planLanes(total, pageSize);
  const pages = lanes.flatMap((l) => chunkRange(l.fromPage, l.toPage).flatMap(([a, b]) => Array.from({ length: b - a }, (_, i) => a + i)));
  expect(pages).toEqual(Array.from({ length: pageCount(total, pageSize) }, (_, i) => i));
  lanes.forEach((l, i) => expect(l.lane).toBe(i));
  return lanes;
}

describe('planLanes', () => {
  it.each([
    // [total, page_size, lanes]
    [0, 500, 0],
    [1, 500, 1],
    [199_999, 500, 1], // 400 pages
    [200_000, 500, 1], // exactly 400 pages: still linear
    [200_001, 500, 5], // 401 pages: ceil(200001 / 50000) = 5
    [40_000, 100, 1],
    [40_001, 100, 5],
    [400_000, 1000, 1],
    [400_001, 1000, 5],
    [10_000_000, 1000, MAX_LANES], // never more than 5
  ])('total %i at page_size %i → %i lanes', (total, pageSize, lanes) => {
    expect(expectCovers(total, pageSize)).toHaveLength(lanes);
  });

  it('splits evenly: 401 pages → 81, 81, 81, 81, 77', () => {
    expect(planLanes(200_001, 500).map((l) => l.toPage - l.fromPage)).toEqual([81, 81, 81, 81, 77]);
  });

  it('uses ceil(total / (page_size × 100)) below the cap', () => {
    // 401 pages can only be reached above 4 × page_size × 100 rows, so below 5 lanes needs a lower cap
    expect(planLanes(300_000, 500, 10)).toHaveLength(6);
    expect(planLanes(250_000, 500)).toHaveLength(5);
    expect(pageCount(250_000, 500)).toBeGreaterThan(LINEAR_MAX_PAGES);
  });

  it('chunks lanes into activities of at most the given number of pages', () => {
    expect(chunkRange(0, 250)).toEqual([
      [0, 100],
      [100, 200],
      [200, 250],
    ]);
    expect(chunkRange(81, 162)).toEqual([[81, 162]]);
  });

  it('knows how many rows each page and page range must hold', () => {
    expect(expectedRows(0, 1234, 100)).toBe(100);
    expect(expectedRows(12, 1234, 100)).toBe(34);
    expect(expectedRows(13, 1234, 100)).toBe(0);
    expect(rowsInPages(10, 13, 1234, 100)).toBe(234);
  });
});

describe('planSheetLanes', () => {
  it('plans each sheet as its own export and numbers the lanes across sheets', () => {
    // 401 pages → 5 lanes; an empty sheet → none; 3 pages → 1 lane.
    const lanes = planSheetLanes([{ total: 40_001 }, { total: 0 }, { total: 250 }], 100);
    expect(lanes.map((l) => [l.lane, l.sheet])).toEqual([[0, undefined], [1, undefined], [2, undefined], [3, undefined], [4, undefined], [5, 2]]);
    expect(lanes[5]).toEqual({ lane: 5, sheet: 2, fromPage: 0, toPage: 3 });
    expect(lanes.slice(0, 5)).toEqual(planLanes(40_001, 100));
  });
});
