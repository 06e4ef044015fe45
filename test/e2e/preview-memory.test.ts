// A preview's memory is bounded in bytes: each source answer by PREVIEW_MAX_PAGE_BYTES, all of a
// workbook's sheets' answers together by PREVIEW_MAX_BYTES; beyond, a 422 preview_too_large.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();

beforeAll(async () => {
  env = await startTestEnv({ PREVIEW_MAX_PAGE_BYTES: '200000', PREVIEW_MAX_BYTES: '1000000' });
  ({ api_key: key } = await env.createProject({ source_hosts: ['127.0.0.1'] }));
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});

/** A source whose page of 100 rows is about `kb` kilobytes. */
const wide = (kb: number) => source({ total: 100, row: (i) => ({ id: i, text: 'x'.repeat(kb * 10) }) });

async function preview(body: Record<string, unknown>) {
  return env.api('POST', '/v1/tasks/preview', { token: key, body: { operator_id: 'op', page_size: 100, ...body } });
}

describe('preview memory', () => {
  it('refuses a source answer over PREVIEW_MAX_PAGE_BYTES, which an export would take', async () => {
    const src = await wide(300);
    const res = await preview({ source_url: src.url });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('preview_too_large');
    expect(res.json.error.message).toContain('PREVIEW_MAX_PAGE_BYTES');
  });

  it('refuses a workbook whose sheets’ answers exceed PREVIEW_MAX_BYTES together, each page within its limit', async () => {
    const src = await wide(150);
    const sheets = Array.from({ length: 10 }, (_, i) => ({ source_url: `${src.url}?sheet=${i}`, name: `S${i}` }));
    const res = await preview({ type: 'excel', sheets });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('preview_too_large');
    expect(res.json.error.message).toContain('PREVIEW_MAX_BYTES');
  });

  it('renders a workbook within both limits', async () => {
    const src = await wide(150);
    const sheets = Array.from({ length: 3 }, (_, i) => ({ source_url: `${src.url}?sheet=${i}`, name: `S${i}` }));
    const res = await preview({ type: 'excel', sheets, rows: 5 });
    expect(res.status, JSON.stringify(res.json).slice(0, 300)).toBe(200);
  });
});
