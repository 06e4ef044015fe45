// The JSON-bytes-to-JSON-Lines path (domain/formats/jsonl-transcode.ts) against the ordinary one,
// encodeJsonLines(JSON.parse(page).data): the same bytes, total and row count on every page it
// takes; on every page JSON.parse refuses it gives up (null).
import { describe, expect, it } from 'vitest';
import type { Column } from '../../domain/formats/columns.js';
import { encodeJsonLines } from '../../domain/formats/jsonl.js';
import { JsonlTranscoder } from '../../domain/formats/jsonl-transcode.js';
import { generatedPages, mutatedPages } from '../support/json-pages.js';

const cols = (...keys: string[]): Column[] => keys.map((key) => ({ key, title: key }));

function check(t: JsonlTranscoder, source: string, columns: Column[]): boolean {
  const bytes = Buffer.from(source, 'utf8');
  // What the source sends is bytes: a lone surrogate in the generated text is U+FFFD there.
  const text = bytes.toString('utf8');
  const fast = t.transcode(bytes);
  let json: { total?: unknown; data?: unknown };
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    expect(fast, text).toBeNull();
    return false;
  }
  if (fast === null) return false;
  expect(Array.isArray(json.data) && json.data.every((d) => typeof d === 'object' && d !== null && !Array.isArray(d)), text).toBe(true);
  const want = encodeJsonLines(json.data as unknown[], columns);
  expect(fast.lines.toString('utf8'), text).toBe(want.toString('utf8'));
  expect(fast.rows).toBe((json.data as unknown[]).length);
  expect(fast.total).toBe(json.total);
  return true;
}

describe('JsonlTranscoder', () => {
  it('writes the same bytes as JSON.parse + encodeJsonLines on generated pages, and takes most of them', () => {
    const taken = generatedPages((text, keys) => {
      const columns = cols(...keys);
      return check(new JsonlTranscoder(columns), text, columns);
    });
    expect(taken).toBeGreaterThan(3000 * 0.5);
  });

  it('never takes a page JSON.parse refuses, nor one changed by a byte (then it matches or gives up)', () => {
    const columns = cols('id', 'name', 'amount');
    const t = new JsonlTranscoder(columns);
    for (const text of mutatedPages()) check(t, text, columns);
  });

  it('copies the plain values of the pages sources send', () => {
    const columns = cols('id', 'customer', 'amount', 'remark', 'gone');
    const text = JSON.stringify({ total: 2, data: [{ id: 1, customer: '客户 1', amount: 12.5, remark: 'gift, wrap "red"' }, { remark: null, id: 2, customer: '=x', amount: -0.25 }] });
    expect(new JsonlTranscoder(columns).transcode(Buffer.from(text))!.lines.toString()).toBe(
      '{"id":1,"customer":"客户 1","amount":12.5,"remark":"gift, wrap \\"red\\"","gone":null}\n{"id":2,"customer":"=x","amount":-0.25,"remark":null,"gone":null}\n',
    );
  });
});
