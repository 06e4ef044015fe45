// CSV pages parsed and encoded on a thread (domain/staging/page-encoder.ts) give the same bytes
// and the same failures as on the calling thread.
import { afterAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors.js';
import { encodeCsvRows } from '../../domain/formats/csv/encode.js';
import { PageEncoder } from '../../domain/staging/page-encoder.js';
import { encodeStaged } from '../../domain/staging/pieces.js';

const columns = [
  { key: 'id', title: 'ID' },
  { key: 'note', title: 'Note' },
];
const rows = [
  { id: 1, note: '=HYPERLINK("x")' },
  { id: 2, note: 'a, "quoted"\nline' },
  { id: 3, note: '客户 3' },
];
const body = (o: unknown) => Buffer.from(JSON.stringify(o));
const probed = { total: 3, pageSize: 3 };

const threaded = new PageEncoder(1, 1);
const inline = new PageEncoder(0);
afterAll(() => threaded.close());

describe("a Parquet piece's row groups", () => {
  it('are the same bytes encoded on a thread as on the calling thread', async () => {
    const parts = [0, 1].map((p) => encodeStaged('pqv', rows.map((r) => ({ ...r, id: r.id + 3 * p })), columns));
    const here = Buffer.concat(await inline.piece(parts, columns));
    expect(here[0]).toBe(0x47); // groups first (domain/formats/parquet/groups.ts)
    expect(Buffer.concat(await threaded.piece(parts, columns)).equals(here)).toBe(true);
    // The lane's pages are still its own (copied to the thread, not moved).
    expect(parts.every((p) => p.length > 0)).toBe(true);
  });
});

async function failure(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe.each([
  ['on a thread', threaded],
  ['on the calling thread', inline],
])('page encoder %s', (_, encoder) => {
  it('encodes a page exactly as encodeCsvRows does, formula escaping included', async () => {
    const out = await encoder.encode(body({ total: 3, data: rows }), 0, 3, probed, columns);
    expect(out.equals(encodeCsvRows(rows, columns))).toBe(true);
    expect(out.toString()).toContain(`"'=HYPERLINK(""x"")"`);
  });

  it("writes the task's dialect and time_zone, on the byte path and the ordinary one", async () => {
    const style = { delimiter: '\t', lineEnding: 'lf', timeZone: 'Asia/Shanghai' } as const;
    const zoned = [...rows, { id: 4, note: '2026-11-03T00:30:00Z' }];
    const want = encodeCsvRows(zoned, columns, style);
    expect(want.toString()).toBe(`1\t"'=HYPERLINK(""x"")"\n2\t"a, ""quoted""\nline"\n3\t客户 3\n4\t2026-11-03 08:30:00\n`);
    const plain = await encoder.encode(body({ total: 4, data: zoned }), 0, 4, { total: 4, pageSize: 4 }, columns, 'csv', style);
    expect(plain.toString()).toBe(want.toString());
    // A second "data" member: the byte path gives the page up, JSON.parse + encodeCsvRows write it.
    const ordinary = await encoder.encode(Buffer.from(`{"data":[],${JSON.stringify({ total: 4, data: zoned }).slice(1)}`), 0, 4, { total: 4, pageSize: 4 }, columns, 'csv', style);
    expect(ordinary.toString()).toBe(want.toString());
  });

  it('fails malformed JSON permanently, naming the page', async () => {
    const err = await failure(encoder.encode(Buffer.from('{"total": 3, "data": ['), 4, 3, probed, columns));
    expect(err.code).toBe('source_bad_response');
    expect(err.retryable).toBe(false);
    expect(err.message).toBe('source answered malformed JSON for page 4 (page_size 3)');
  });

  it('fails a page that disagrees with the probe with source_changed', async () => {
    const err = await failure(encoder.encode(body({ total: 5, data: rows }), 0, 3, probed, columns));
    expect(err.code).toBe('source_changed');
    expect(err.message).toContain('from 3 to 5');
    const short = await failure(encoder.encode(body({ total: 3, data: rows.slice(0, 2) }), 0, 3, probed, columns));
    expect(short.message).toContain('returned 2 rows where 3 were expected');
  });

  it('rejects a page whose data is not an array of objects', async () => {
    const err = await failure(encoder.encode(body({ total: 3, data: [1, 2, 3] }), 0, 3, probed, columns));
    expect(err.message).toContain('data[0] is not an object or array');
  });
});
