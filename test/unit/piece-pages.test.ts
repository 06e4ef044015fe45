// The render pass reads a staged .ndjson piece as pages parsed row by row (a page held whole was
// promoted by the young-generation collector, docs/performance.md): the pages must be the ones a
// whole parse gave, blank lines skipped, and a broken line must fail the render.
import { describe, expect, it } from 'vitest';
import { piecePages } from '../../domain/staging/render-xlsx.js';

const pages = (text: string, pageSize: number) => [...piecePages(Buffer.from(text), pageSize, 'staging/t/pages/00000000-00000003.ndjson')].map((p) => [...p]);

describe('piecePages', () => {
  it('cuts a piece into pages of pageSize rows, the last one shorter', () => {
    const rows = Array.from({ length: 7 }, (_, i) => ({ id: i, name: `客户 ${i}` }));
    const text = rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
    expect(pages(text, 3)).toEqual([rows.slice(0, 3), rows.slice(3, 6), rows.slice(6)]);
    expect(pages(text, 7)).toEqual([rows]);
  });

  it('skips blank lines, reads a last line without a newline, and yields no empty page', () => {
    expect(pages('\n{"a":1}\n\n{"a":2}\n{"a":3}', 2)).toEqual([[{ a: 1 }, { a: 2 }], [{ a: 3 }]]);
    expect(pages('{"a":1}\n{"a":2}\n\n\n', 2)).toEqual([[{ a: 1 }, { a: 2 }]]);
    expect(pages('', 2)).toEqual([]);
  });

  it("fails with storage_failed (ours, not the source's) on a line that is not JSON", () => {
    expect(() => pages('{"a":1}\n{"a":\n', 5)).toThrow(/00000000-00000003.ndjson is not valid JSON lines/);
  });
});
