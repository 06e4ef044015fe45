// GET /metrics (docs/operations.md#metrics): scraped before and after real exports, the counters move by exactly
// what happened; the Temporal SDK's worker metrics are in the same scrape; only the admin token
// (or METRICS_PUBLIC=true) may read it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess } from '../support/api-process.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { names, parseProm, sample, type Samples } from '../support/prom.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { type SourceServer, startSource } from '../support/source-server.js';
import { connect } from '../support/ws-client.js';

let env: TestEnv;
let src: SourceServer;
let slow: SourceServer;
let receiver: Receiver;
let project: { project_id: string; api_key: string; webhook_secret: string };

beforeAll(async () => {
  env = await startTestEnv();
  let failedOnce = false;
  // 1234 rows at page_size 500: the probe and 3 pages; page 1 answers 503 once (then is retried).
  src = await startSource({
    total: 1234,
    delayMs: (r) => (r.pageSize === 1 ? 0 : 300),
    intercept: (r) => {
      if (r.page !== 1 || r.pageSize === 1 || failedOnce) return undefined;
      failedOnce = true;
      return { status: 503, body: 'busy' };
    },
  });
  slow = await startSource({ total: 50_000, delayMs: (r) => (r.pageSize === 1 ? 0 : 200) });
  project = await env.createProject({ name: 'metered', source_hosts: [src.host, slow.host], callback_hosts: ['127.0.0.1'] });
  receiver = await startReceiver(project.webhook_secret);
});

afterAll(async () => {
  await Promise.all([src?.close(), slow?.close(), receiver?.close()]);
  await env?.close();
});

async function scrape(token = ADMIN): Promise<Samples> {
  const res = await fetch(`${env.base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseProm(await res.text());
}

describe('GET /metrics', () => {
  it('moves every counter by what one export did', async () => {
    const p = project.project_id;
    const before = await scrape();
    const delta = (after: Samples, name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);

    const ws = await connect(env.base, { token: project.api_key });
    ws.send({ subscribe: '*' });
    await ws.next((m) => m.subscribed === '*');
    const body = { source_url: src.url, operator_id: 'm', callback: receiver.url };
    const first = await env.api('POST', '/v1/tasks', { token: project.api_key, body });
    expect(first.status).toBe(202);
    expect((await env.api('POST', '/v1/tasks', { token: project.api_key, body })).status).toBe(200);
    expect((await env.api('POST', '/v1/tasks', { token: project.api_key, body: { operator_id: 'm' } })).status).toBe(422);
    const during = await scrape();
    expect(sample(during, 'dc_ws_connections')).toBe(1);

    const task = await env.waitForTask(first.json.task_id, project.api_key);
    expect(task.status).toBe('succeeded');
    await receiver.waitFor(1);
    await ws.next((m) => m.event === 'task.succeeded');
    ws.close();
    await ws.closed;
    // The delivery is counted just after the receiver answered: scrape until it is in.
    let after = await scrape();
    await expect.poll(async () => delta((after = await scrape()), 'dc_callback_deliveries_total', { project_id: p, result: 'delivered' }), { timeout: 10_000 }).toBe(1);

    expect(delta(after, 'dc_task_submissions_total', { project_id: p, outcome: 'accepted', code: '' })).toBe(1);
    expect(delta(after, 'dc_task_submissions_total', { project_id: p, outcome: 'deduplicated', code: '' })).toBe(1);
    expect(delta(after, 'dc_task_submissions_total', { project_id: p, outcome: 'rejected', code: 'validation_failed' })).toBe(1);
    expect(delta(after, 'dc_exports_finished_total', { project_id: p, type: 'csv', status: 'succeeded' })).toBe(1);
    expect(delta(after, 'dc_rows_exported_total', { project_id: p, type: 'csv' })).toBe(1234);
    expect(delta(after, 'dc_bytes_exported_total', { project_id: p, type: 'csv' })).toBe(task.files.reduce((n: number, f: { bytes: number }) => n + f.bytes, 0));
    expect(delta(after, 'dc_export_duration_seconds_count', { type: 'csv', status: 'succeeded' })).toBe(1);
    // The export took at least the three 300 ms pages one after another.
    expect(delta(after, 'dc_export_duration_seconds_sum', { type: 'csv', status: 'succeeded' })).toBeGreaterThan(0.9);
    for (const stage of ['probing', 'fetching', 'rendering', 'uploading']) {
      expect(delta(after, 'dc_stage_duration_seconds_count', { type: 'csv', stage }), stage).toBe(1);
    }
    expect(delta(after, 'dc_stage_duration_seconds_sum', { type: 'csv', stage: 'fetching' })).toBeGreaterThan(0.9);
    // Probe + 3 pages answered, the 503 once.
    expect(delta(after, 'dc_source_request_duration_seconds_count', { outcome: 'ok' })).toBe(4);
    expect(delta(after, 'dc_source_request_duration_seconds_count', { outcome: 'error' })).toBe(1);
    expect(delta(after, 'dc_source_request_errors_total', { project_id: p, kind: 'http_5xx' })).toBe(1);
    expect(delta(after, 'dc_callback_deliveries_total', { project_id: p, result: 'delivered' })).toBe(1);
    expect(delta(after, 'dc_ws_events_sent_total', { event: 'task.succeeded' })).toBe(1);
    expect(sample(after, 'dc_ws_connections')).toBe(0);
    expect(delta(after, 'dc_http_request_duration_seconds_count', { method: 'POST', route: '/v1/tasks', status: '202' })).toBe(1);
    expect(sample(after, 'dc_tasks', { status: 'succeeded' })).toBeGreaterThanOrEqual(1);

    // The Temporal SDK's worker metrics, from the Runtime's Prometheus exporter, in the same scrape.
    const all = names(after);
    expect(all).toContain('temporal_activity_execution_latency_count');
    expect(all).toContain('temporal_worker_task_slots_available');
    expect(all).toContain('process_cpu_seconds_total');
  });

  it('counts rate-limited submissions and queued tasks per project', async () => {
    const q = await env.createProject({ name: 'queue', source_hosts: [slow.host], max_running_tasks: 1, submit_per_minute: 3 });
    const before = await scrape();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await env.api('POST', '/v1/tasks', { token: q.api_key, body: { source_url: `${slow.url}?i=${i}`, operator_id: 'q', page_size: 100 } });
      if (res.status === 202) ids.push(res.json.task_id);
      else expect(res.status).toBe(429);
    }
    expect(ids).toHaveLength(3);
    await env.waitForTask(ids[0]!, q.api_key, (t) => t.status === 'running');
    const after = await scrape();
    const d = (labels: Record<string, string>) => sample(after, 'dc_task_submissions_total', labels) - sample(before, 'dc_task_submissions_total', labels);
    expect(d({ project_id: q.project_id, outcome: 'accepted', code: '' })).toBe(3);
    expect(d({ project_id: q.project_id, outcome: 'rate_limited', code: '' })).toBe(1);
    expect(sample(after, 'dc_tasks_queued', { project_id: q.project_id })).toBe(2);
    expect(sample(after, 'dc_tasks', { status: 'running' })).toBeGreaterThanOrEqual(1);
    for (const id of ids) await env.api('POST', `/v1/tasks/${id}/cancel`, { token: q.api_key });
  });

  it('needs the admin token, unless METRICS_PUBLIC=true', async () => {
    expect((await fetch(`${env.base}/metrics`)).status).toBe(401);
    expect((await fetch(`${env.base}/metrics`, { headers: { authorization: `Bearer ${project.api_key}` } })).status).toBe(403);
    const open = await startApiProcess(env, { METRICS_PUBLIC: 'true' });
    try {
      const res = await fetch(`${open.base}/metrics`);
      expect(res.status).toBe(200);
      const s = parseProm(await res.text());
      // An API process counts tasks from the database too.
      expect(sample(s, 'dc_tasks', { status: 'succeeded' })).toBeGreaterThanOrEqual(1);
    } finally {
      await open.stop();
    }
  });
});
