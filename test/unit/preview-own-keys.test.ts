// The preview of a source whose later rows lack a key named like an Object.prototype member: it
// answered 500 (CSV's ordinary path threw on Object's function), now the file, the key empty.
// POST /v1/tasks/preview in process (test/support/route-app.ts) against a real source server.
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Project, type RouteApp, startRouteApp } from '../support/route-app.js';
import { type SourceServer, sourcePool } from '../support/source-server.js';
import { readSheet, rowValues } from '../support/xlsx.js';

const pool = sourcePool();
let rt: RouteApp;
let src: SourceServer;
let a: Project;
beforeAll(async () => {
  rt = await startRouteApp();
  // The first row has constructor and toString (so they are columns); the others lack them.
  src = await pool.source({ total: 3, row: (i) => (i === 0 ? { id: 1, constructor: 'c', toString: 't' } : { id: i + 1 }) });
  a = await rt.createProject({ name: 'a', source_hosts: [src.host] });
});
afterAll(async () => {
  await rt?.close();
  await pool.closeSources();
});

const preview = (body: Record<string, unknown>) =>
  rt.call('POST', '/v1/tasks/preview', { token: a.api_key, body: { operator_id: 'op-1', source_url: src.url, rows: 3, page_size: 100, ...body } });

describe('a preview of rows lacking a key named like an Object.prototype member', () => {
  it('CSV: the key is empty (was 500)', async () => {
    const res = await preview({});
    expect(res.status, res.text).toBe(200);
    expect(parse(res.text.replace(/^\ufeff/, ''))).toEqual([
      ['id', 'constructor', 'toString'],
      ['1', 'c', 't'],
      ['2', '', ''],
      ['3', '', ''],
    ]);
  });

  it('JSON Lines: the key is null', async () => {
    const res = await preview({ type: 'jsonl' });
    expect(res.status, res.text).toBe(200);
    expect(res.text.trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([
      { id: 1, constructor: 'c', toString: 't' },
      { id: 2, constructor: null, toString: null },
      { id: 3, constructor: null, toString: null },
    ]);
  });

  it('xlsx: the cell is empty (was the function\'s text)', async () => {
    const res = await rt.app.request('/v1/tasks/preview', {
      method: 'POST',
      headers: { authorization: `Bearer ${a.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ operator_id: 'op-1', source_url: src.url, rows: 3, page_size: 100, type: 'excel' }),
    });
    expect(res.status).toBe(200);
    const ws = await readSheet(Buffer.from(await res.arrayBuffer()));
    expect([2, 3, 4].map((n) => rowValues(ws, n))).toEqual([
      [1, 'c', 't'],
      [2, null, null],
      [3, null, null],
    ]);
  });
});
