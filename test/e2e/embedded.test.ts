// The newcomer's path: `npm start` on embedded defaults (PGlite, spawned Temporal, local files).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, expect, it } from 'vitest';
import { demoOrder } from '../../app/demo-source.js';
import { type Embedded, pidAlive, startEmbedded } from '../support/embedded.js';

let svc: Embedded | undefined;

afterAll(async () => {
  if (svc && svc.child.exitCode === null && svc.child.signalCode === null) {
    svc.signal('SIGKILL');
    await svc.exited;
  }
  if (svc) rmSync(svc.dataDir, { recursive: true, force: true });
});

const call = (method: string, path: string, token: string, body?: unknown) => svc!.call(method, path, token, body);

it('npm start serves health, exports the demo source on PGlite, previews and runs a schedule, and shuts down cleanly on Ctrl-C', async () => {
  svc = await startEmbedded();
  expect(svc.output()).toContain('"database":"pglite"');
  expect((await call('GET', '/healthz', '')).json).toEqual({ status: 'ok', checks: { database: 'ok', temporal: 'ok', storage: 'ok' } });

  const admin = svc.adminToken();
  const project = await call('POST', '/v1/projects', admin, { name: 'embedded', source_hosts: [`127.0.0.1:${svc.port}`], email_domains: ['example.com'] });
  expect(project.status).toBe(201);
  const submitted = await call('POST', '/v1/tasks', project.json.api_key, { source_url: `http://127.0.0.1:${svc.port}/demo/orders`, operator_id: 'op', page_size: 1000, notify_email: 'op@example.com' });
  expect(submitted.status).toBe(202);
  let task = submitted.json;
  for (let i = 0; i < 300 && ['queued', 'running'].includes(task.status); i++) {
    await new Promise((r) => setTimeout(r, 100));
    task = (await call('GET', `/v1/tasks/${task.task_id}`, project.json.api_key)).json;
  }
  expect(task.status).toBe('succeeded');
  const csv = Buffer.from(await (await fetch(task.files[0].url)).arrayBuffer()).toString('utf8').slice(1);
  const rows = parse(csv, { columns: true }) as Record<string, string>[];
  expect(rows).toHaveLength(5000);
  expect(rows[4999]!.order_no).toBe(demoOrder(4999).order_no);
  expect(rows[13]!.remark).toBe(demoOrder(13).remark);

  // No SMTP_URL: the mail is caught by the service's own SMTP server, and the admin reads it.
  expect(svc.output()).toContain('caught locally (no SMTP_URL)');
  let mails: any[] = [];
  for (let i = 0; i < 100 && mails.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    mails = (await call('GET', '/v1/admin/mails', admin)).json.items;
  }
  expect(mails.map((m) => m.to)).toEqual([['op@example.com']]);
  const mail = (await call('GET', `/v1/admin/mails/${mails[0].mail_id}`, admin)).json;
  expect(mail.html).toMatch(/href="http:\/\/[^"]+\/operator#token=dco_/);
  expect((await fetch(`${svc.base}/mails`)).status).toBe(200);

  // A preview and a schedule's run on PGlite: the run's lease and submission share its one connection.
  const key = project.json.api_key;
  const preview = await fetch(`${svc.base}/v1/tasks/preview`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ source_url: `http://127.0.0.1:${svc.port}/demo/orders`, operator_id: 'op', rows: 3 }),
  });
  expect([preview.status, preview.headers.get('x-preview-rows')]).toEqual([200, '3']);
  const schedule = await call('POST', '/v1/schedules', key, { cron: '0 2 * * *', source_url: `http://127.0.0.1:${svc.port}/demo/orders?d={{date}}`, operator_id: 'op', page_size: 1000 });
  expect(schedule.status).toBe(201);
  expect((await call('POST', `/v1/schedules/${schedule.json.schedule_id}/trigger`, key)).status).toBe(202);
  let runs: any[] = [];
  for (let i = 0; i < 300 && runs[0]?.status !== 'succeeded'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    runs = (await call('GET', `/v1/tasks?schedule_id=${schedule.json.schedule_id}`, key)).json.items;
  }
  expect(runs.map((t) => t.status)).toEqual(['succeeded']);

  const temporalPid = Number(readFileSync(join(svc.dataDir, 'temporal.pid'), 'utf8'));
  expect(pidAlive(temporalPid)).toBe(true);
  svc.signal('SIGINT');
  await svc.exited;
  expect(svc.output()).toContain('SIGINT: shutting down');
  expect(svc.output()).toContain('[download-center] stopped');
  await new Promise((r) => setTimeout(r, 500));
  expect(pidAlive(temporalPid)).toBe(false);
}, 120_000);
