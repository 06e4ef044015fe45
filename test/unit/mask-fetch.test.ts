// Masks through the fetch and render activities (a real HTTP source, PGlite, the disk store) on
// the shapes only Excel reads: a workbook of two sheets, one with row headers whose groups are
// named and unnamed and hold rows as objects and as arrays, one whose rows are arrays in column
// order. The project's mask_columns and each sheet's template masks apply; the staged pieces and
// the workbook (read back with exceljs) hold masked values only.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityDeps } from '../../activities/deps.js';
import { createRenderActivities } from '../../activities/render.js';
import { projects, tasks } from '../../db/schema.js';
import { newId, randomToken } from '../../platform/crypto.js';
import { type FetchHarness, runActivity, startFetchHarness } from '../support/activity-env.js';
import { type SourceServer, startSource } from '../support/source-server.js';
import { readSheets, rowValues } from '../support/xlsx.js';

let harness: FetchHarness;
let src: SourceServer;

const groups = [{ east: [{ name: '张三丰', phone: '13800000001' }, ['李四', '13800000002']] }, [{ name: '王五', phone: '13800000003' }]];
const flat = [[1, '6222021234567890123'], { id: 2, card: '6222021234567890124' }];
const RAW = ['张三丰', '李四', '王五', '13800000001', '13800000002', '13800000003', '6222021234567890123', '6222021234567890124'];

beforeAll(async () => {
  harness = await startFetchHarness();
  await harness.database.db.update(projects).set({ settings: { mask_columns: { phone: 'phone' } } }).where(eq(projects.id, harness.projectId));
  src = await startSource({
    total: 0,
    intercept: (r) => {
      const data = r.query.get('s') === 'groups' ? groups : flat;
      return { status: 200, body: JSON.stringify({ total: 2, data: r.pageSize === 1 ? data.slice(0, 1) : data }) };
    },
  });
});

afterAll(async () => {
  await src?.close();
  await harness?.close();
});

describe('masks on the shapes Excel reads', () => {
  it('masks row-header groups and array rows of a two-sheet workbook before they are staged', async () => {
    const id = newId('tsk');
    const template0 = { row: [{ name: 'east', title: '华东' }, { name: 'west', title: '华西' }], ceil: [{ name: '__row__', title: '区域' }, { name: 'name', title: '姓名', mask: 'name' }, { name: 'phone', title: '手机' }] };
    const template1 = [{ name: 'id' }, { name: 'card', title: '卡号', mask: 'bank_card' }];
    await harness.database.db.insert(tasks).values({
      id,
      projectId: harness.projectId,
      operatorId: 'op',
      type: 'excel',
      fileName: 'masked',
      sourceUrl: `${src.url}?s=groups`,
      pageSize: 2,
      priority: 0,
      options: { sheets: [{ source_url: `${src.url}?s=groups`, name: 'groups', template: template0 }, { source_url: `${src.url}?s=flat`, name: 'flat', template: template1 }] },
      status: 'running',
      stage: 'probing',
      requestHash: randomToken(16),
    });
    await runActivity({}, () => harness.activities.probeSource({ taskId: id })).result;
    for (const sheet of [0, 1]) await runActivity({}, () => harness.activities.fetchPages({ taskId: id, sheet, lane: 0, laneFromPage: 0, fromPage: 0, toPage: 1 })).result;

    const staged = await harness.storage.list(`staging/${id}/`);
    const pieces = (await Promise.all(staged.filter((k) => k.endsWith('.ndjson')).map((k) => harness.storage.getBuffer(k)))).map((b) => b.toString('utf8'));
    expect(pieces).toHaveLength(2);
    expect(pieces.join('\n')).toContain('138****0001');
    for (const raw of RAW) expect(pieces.join('\n')).not.toContain(raw);

    const render = createRenderActivities({ db: harness.database.db, storage: harness.storage, config: harness.config } as unknown as ActivityDeps);
    const { outputs } = await runActivity({}, () => render.renderFile({ taskId: id })).result;
    const [g, f] = await readSheets(await harness.storage.getBuffer(outputs[0]!.key));
    expect(rowValues(g!, 2)).toEqual(['华东', '张**', '138****0001']);
    expect(rowValues(g!, 3)).toEqual(['华东', '李*', '138****0002']);
    expect(rowValues(g!, 4)).toEqual(['华西', '王*', '138****0003']);
    expect(rowValues(f!, 2)).toEqual([1, '622202*********0123']);
    expect(rowValues(f!, 3)).toEqual([2, '622202*********0124']);
  });
});
