// Masked columns through the real service (docs/formats.md#masked-columns): an export of every
// type with a template's masks and the project's mask_columns, read back by outside readers
// (DuckDB and pyarrow for CSV, JSON Lines and Parquet, openpyxl for xlsx) and compared with masks
// computed here, the hash with node:crypto under the project's key. Then a search for every raw
// value of a masked column in the staging directory (each export paused midway, its pieces on
// disk), the files, the preview and sync answers, every log line of the run (at debug level) and
// the task's e-mail: none is found. A task's template cannot unmask what the project masks.
// A hash key rotated during an export restarts it under the new key; a task failing after masked
// pages quotes no raw value; masks with time_zone, a CSV dialect and the page-encoder threads.
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskKeyOf } from '../../domain/projects/mask-key.js';
import { captureLogs, log } from '../../platform/logger.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { pyreadersDir, readOutside } from '../support/pyreaders.js';
import { type SmtpSink, startSmtpSink } from '../support/smtp.js';
import { sourcePool } from '../support/source-server.js';
import { fetchListed } from '../support/xlsx.js';

let env: TestEnv;
let smtp: SmtpSink;
let project: { project_id: string; api_key: string };
let hashKey: Buffer;
let dir: string;
const lines: string[] = [];
let release: (() => void) | undefined;
const { source, closeSources } = sourcePool();

const SURNAMES = ['张', '欧阳', '李', '王'];
const GIVEN = ['三丰', '娜娜', '小龙', '伟'];
const pad = (n: number, w: number) => String(n).padStart(w, '0');
/** Every masked value is unique to its row, so a raw value found anywhere is a leak, not a coincidence. */
const row = (i: number) => ({
  id: i + 1,
  phone: `139${pad(i, 8)}`,
  name: `${SURNAMES[i % 4]}${GIVEN[(i >> 2) % 4]}${i}`,
  idno: `1101051990${pad(i, 7)}X`,
  card: `6222${pad(i, 15)}`,
  email: `user.${i}@merchant.example`,
  member: `M-${pad(i, 9)}-${i % 3 === 0 ? '😀' : 'x'}`,
  note: i % 5 === 0 ? null : `plain ${i}`,
});
const TOTAL = 600;
const rows = Array.from({ length: TOTAL }, (_, i) => row(i));
const MASKED = ['phone', 'name', 'idno', 'card', 'email', 'member'] as const;
const raws = rows.flatMap((r) => MASKED.map((k) => r[k]));

// The template masks phone, name, idno and member, and tries to show card and email whole; the
// project's mask_columns (card, email) win.
const template = [
  { name: 'id', title: '编号', type: 'integer' },
  { name: 'phone', title: '手机', mask: 'phone', type: 'integer' },
  { name: 'name', title: '姓名', mask: 'name' },
  { name: 'idno', title: '身份证', mask: 'id_card' },
  { name: 'card', title: '卡号', mask: { keep_start: 64, keep_end: 64 } },
  { name: 'email', title: '邮箱' },
  { name: 'member', title: '会员', mask: 'hash' },
  { name: 'note', title: '备注' },
];

/** The masks as the docs state them, computed here without the product's code. */
const stars = (n: number) => '*'.repeat(n);
const expectedRow = (r: ReturnType<typeof row>) => {
  const nameChars = [...r.name];
  return {
    id: r.id,
    phone: `${r.phone.slice(0, 3)}${stars(4)}${r.phone.slice(7)}`,
    name: nameChars[0] + stars(nameChars.length - 1),
    idno: `${r.idno.slice(0, 6)}${stars(8)}${r.idno.slice(14)}`,
    card: `${r.card.slice(0, 6)}${stars(9)}${r.card.slice(15)}`,
    email: `u***@merchant.example`,
    member: createHmac('sha256', hashKey).update(r.member, 'utf8').digest('hex'),
    note: r.note,
  };
};
const expected = () => rows.map(expectedRow);

beforeAll(async () => {
  smtp = await startSmtpSink();
  env = await startTestEnv({ SMTP_URL: smtp.url, EMAIL_FROM: 'Exports <exports@example.test>' });
  release = captureLogs((line) => lines.push(line));
  log.level = 'debug';
  project = await env.createProject({ source_hosts: ['127.0.0.1'], email_domains: ['example.test'], mask_columns: { card: 'bank_card', email: 'email' } });
  hashKey = Buffer.from(await maskKeyOf(env.core.database.db, project.project_id, env.core.secrets.destinationKeys), 'hex');
  dir = await mkdtemp(join(tmpdir(), 'dc-masking-'));
});

afterAll(async () => {
  release?.();
  log.level = 'warn';
  await closeSources();
  await env?.close();
  await smtp?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every file under a directory. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** The raw values found in a text or file body (none expected). */
const leaks = (body: Buffer | string, among: string[] = raws): string[] => {
  const b = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return among.filter((v) => b.includes(v));
};

const api = (method: string, path: string, body?: unknown) => env.api(method, path, { token: project.api_key, body });

/**
 * An export paused once a few pages are staged: the staging directory is searched then (its
 * pieces hold masked values and no raw one); resumed, it finishes and its files are returned.
 */
async function exportPausedMidway(body: Record<string, unknown>): Promise<Array<{ name: string; url: string; bytes: number; sha256: string }>> {
  const src = await source({ total: TOTAL, row, delayMs: (r) => (r.pageSize > 1 && r.page >= 3 ? 2000 : 0) });
  const res = await api('POST', '/v1/tasks', { operator_id: 'op-1', page_size: 100, source_url: src.url, template, ...body });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  const id = res.json.task_id as string;
  await env.waitForTask(id, project.api_key, (t) => (t.progress?.pages_done ?? 0) >= 3 || ['succeeded', 'failed', 'cancelled'].includes(t.status));
  expect((await api('POST', `/v1/tasks/${id}/pause`)).status).toBe(202);
  await env.waitForTask(id, project.api_key, (t) => t.status === 'paused');
  const staged = filesUnder(env.config.DATA_DIR).filter((p) => p.includes(id) && p.includes('staging'));
  expect(staged.length).toBeGreaterThan(0);
  const text = staged.map((p) => readFileSync(p)).reduce((a, b) => Buffer.concat([a, b]), Buffer.alloc(0));
  expect(text.includes('139****')).toBe(true);
  expect(leaks(text)).toEqual([]);
  expect((await api('POST', `/v1/tasks/${id}/resume`)).status).toBe(202);
  const task = await env.waitForTask(id, project.api_key, undefined, 120_000);
  expect(task.error).toBeNull();
  expect(task.status).toBe('succeeded');
  return task.files;
}

async function saved(file: { name: string; url: string; bytes: number; sha256: string }): Promise<{ path: string; body: Buffer }> {
  const body = await fetchListed(file);
  const path = join(dir, file.name);
  await writeFile(path, body);
  return { path, body };
}

const run = (cmd: string, args: string[], input: string, extraEnv: Record<string, string>) =>
  new Promise<string>((resolve, reject) => {
    const child = execFile(cmd, args, { env: { ...process.env, ...extraEnv }, maxBuffer: 64 << 20 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    child.stdin!.end(input);
  });

/** openpyxl's reading of a workbook's first sheet: rows of tagged values (test/support/format-readers.py). */
async function openpyxlRows(path: string): Promise<unknown[][]> {
  const out = await run('python3', [join(import.meta.dirname, '../support/format-readers.py')], JSON.stringify([{ id: 'x', kind: 'xlsx', compression: null, paths: [path] }]), { PYTHONPATH: pyreadersDir });
  const read = JSON.parse(out).x;
  if (read.error) throw new Error(read.error);
  return read.parts[0].sheets[0].map((r: Array<[string, unknown]>) => r.map((c) => (c[0] === 'none' ? null : c[0] === 'int' ? Number(c[1]) : c[1])));
}

const masked = () => expected().map((e) => [e.id, e.phone, e.name, e.idno, e.card, e.email, e.member, e.note]);

describe('an export of every type', () => {
  it('CSV: DuckDB and pyarrow read the masked values; nothing raw in staging or the file', async () => {
    const [file] = await exportPausedMidway({ type: 'csv', file_name: 'masked' });
    const { path, body } = await saved(file!);
    expect(leaks(body)).toEqual([]);
    const { duckdb, pyarrow } = await readOutside('csv', path);
    for (const view of [duckdb, pyarrow]) {
      const got = view.rows.map((r) => r.map(([, v]) => v));
      expect(got.map((r) => r.slice(1, 7))).toEqual(masked().map((r) => r.slice(1, 7)));
    }
  });

  it('JSON Lines: every masked value a string, the rest as the source sent it', async () => {
    const [file] = await exportPausedMidway({ type: 'jsonl' });
    const { path, body } = await saved(file!);
    expect(leaks(body)).toEqual([]);
    expect(body.toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(expected());
    const { duckdb, pyarrow } = await readOutside('jsonl', path);
    for (const view of [duckdb, pyarrow]) expect(view.rows.map((r) => r[1])).toEqual(expected().map((e) => ['str', e.phone]));
  });

  it('Parquet: a masked column is text whatever the template\'s type (phone says integer)', async () => {
    const [file] = await exportPausedMidway({ type: 'parquet' });
    const { path, body } = await saved(file!);
    expect(leaks(body)).toEqual([]);
    const { duckdb, pyarrow } = await readOutside('parquet', path);
    expect(pyarrow.types).toMatchObject({ id: 'int64', phone: 'string', name: 'string', card: 'string', member: 'string' });
    expect(duckdb.types).toMatchObject({ phone: 'VARCHAR' });
    for (const view of [duckdb, pyarrow]) expect(view.rows.map((r) => r.map(([, v]) => v))).toEqual(masked());
  });

  it('xlsx: openpyxl reads the masked cells as text', async () => {
    const [file] = await exportPausedMidway({ type: 'excel' });
    const { path } = await saved(file!);
    const sheet = await openpyxlRows(path);
    expect(sheet[0]).toEqual(['编号', '手机', '姓名', '身份证', '卡号', '邮箱', '会员', '备注']);
    expect(sheet.slice(1)).toEqual(masked());
    // The workbook is a zip: its unpacked sheet is searched too (a raw value could hide compressed).
    const unzipped = await run('python3', ['-c', 'import sys,zipfile;z=zipfile.ZipFile(sys.argv[1]);sys.stdout.write("".join(z.read(n).decode("utf-8","replace") for n in z.namelist()))', path], '', {});
    expect(unzipped).toContain('139****');
    expect(leaks(unzipped)).toEqual([]);
  });

  it('without a template, the project\'s masks apply by source key (and only theirs)', async () => {
    const src = await source({ total: 50, row });
    const res = await api('POST', '/v1/tasks', { operator_id: 'op-1', source_url: src.url, type: 'csv' });
    const task = await env.waitForTask(res.json.task_id, project.api_key);
    const body = (await saved(task.files[0])).body.toString('utf8');
    const first = rows.slice(0, 50).map(expectedRow);
    expect(leaks(body, rows.slice(0, 50).flatMap((r) => [r.card, r.email]))).toEqual([]);
    for (const e of first) expect(body).toContain(`${e.card},${e.email}`);
    // Not masked by anyone here: the phone is written as sent.
    expect(body).toContain(rows[0]!.phone);
  });
});

describe('preview, sync and e-mail', () => {
  it('the preview and the sync answer hold masked values only', async () => {
    const src = await source({ total: TOTAL, row });
    for (const type of ['csv', 'excel']) {
      const res = await fetch(`${env.base}/v1/tasks/preview`, {
        method: 'POST',
        headers: { authorization: `Bearer ${project.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ operator_id: 'op-1', source_url: src.url, type, template, rows: 50 }),
      });
      expect(res.status).toBe(200);
      const body = Buffer.from(await res.arrayBuffer());
      if (type === 'csv') {
        expect(body.toString('utf8')).toContain(expectedRow(rows[0]!).phone);
        expect(leaks(body)).toEqual([]);
      } else {
        const path = join(dir, 'preview.xlsx');
        await writeFile(path, body);
        expect((await openpyxlRows(path)).slice(1)).toEqual(masked().slice(0, 50));
      }
    }
    const small = await source({ total: 40, row });
    const sync = await fetch(`${env.base}/v1/tasks/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ operator_id: 'op-1', source_url: small.url, type: 'jsonl', template }),
    });
    expect(sync.status).toBe(200);
    const lines = (await sync.text()).trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual(expected().slice(0, 40));
  });

  it('the task\'s e-mail holds no raw value', async () => {
    const src = await source({ total: 30, row });
    const res = await api('POST', '/v1/tasks', { operator_id: 'op-1', source_url: src.url, type: 'csv', template, notify_email: 'ops@example.test', file_name: 'mailed' });
    await env.waitForTask(res.json.task_id, project.api_key);
    const [mail] = await smtp.waitFor(1, 60_000);
    expect(mail!.parsed.subject).toBeTruthy();
    expect(leaks(mail!.raw)).toEqual([]);
    expect(leaks(`${mail!.parsed.text}\n${mail!.parsed.html}`)).toEqual([]);
  });

  it('the service\'s log lines of all of the above hold no raw value', async () => {
    // Activity lines go through the SDK's logger, which batches for 100 ms.
    await new Promise((r) => setTimeout(r, 500));
    expect(lines.length).toBeGreaterThan(50);
    expect(lines.some((l) => l.includes('fetchPages'))).toBe(true);
    expect(leaks(lines.join('\n'))).toEqual([]);
  });
});

describe('the project\'s word', () => {
  it('a template cannot unmask a column the project masks; the admin can rotate the hash key and hashes change', async () => {
    const src = await source({ total: 5, row });
    const tryUnmask = [{ name: 'card', mask: { keep_start: 64, keep_end: 0 } }, { name: 'email' }, { name: 'member', mask: 'hash' }];
    const before = await api('POST', '/v1/tasks', { operator_id: 'op-1', source_url: src.url, type: 'jsonl', template: tryUnmask });
    const first = await env.waitForTask(before.json.task_id, project.api_key);
    const a = (await saved(first.files[0])).body.toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(a.map((r) => r.card)).toEqual(rows.slice(0, 5).map((r) => expectedRow(r).card));
    expect(a.map((r) => r.email)).toEqual(rows.slice(0, 5).map((r) => expectedRow(r).email));
    const rotated = await env.api('POST', `/v1/projects/${project.project_id}/rotate-mask-key`, { token: ADMIN });
    expect(rotated.status).toBe(200);
    const again = await api('POST', '/v1/tasks', { operator_id: 'op-2', source_url: src.url, type: 'jsonl', template: tryUnmask });
    const second = await env.waitForTask(again.json.task_id, project.api_key);
    const b = (await saved(second.files[0])).body.toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(b.map((r) => r.member)).not.toEqual(a.map((r) => r.member));
    const newKey = Buffer.from(await maskKeyOf(env.core.database.db, project.project_id, env.core.secrets.destinationKeys), 'hex');
    expect(b[0].member).toBe(createHmac('sha256', newKey).update(rows[0]!.member).digest('hex'));
  });
});

describe('a task that fails after masked pages', () => {
  it('names no raw value in its error.message or its e-mail, whether the render or the source fails', async () => {
    // Parquet: page 4 holds an id the template types integer that is not one; the masked pages
    // before it are staged, then the render fails (render_failed names the bad value, unmasked).
    const badId = (i: number) => (i === 450 ? { ...row(i), id: 'n/a-450' } : row(i));
    const rendered = await source({ total: TOTAL, row: badId });
    // CSV: page 3 answers a row that is a raw phone number, not an object (source_bad_response).
    const broken = await source({
      total: TOTAL,
      row,
      intercept: (r) =>
        r.pageSize > 1 && r.page === 3 ? { status: 200, body: JSON.stringify({ total: TOTAL, data: [row(300), rows[301]!.phone, rows[302]!.email] }) } : undefined,
    });
    const cases = [
      { src: rendered, type: 'parquet', code: 'render_failed' },
      { src: broken, type: 'csv', code: 'source_bad_response' },
    ];
    const before = smtp.received.length;
    for (const [i, c] of cases.entries()) {
      const res = await api('POST', '/v1/tasks', { operator_id: 'op-1', page_size: 100, source_url: c.src.url, type: c.type, template, notify_email: 'ops@example.test', file_name: `failed-${i}` });
      expect(res.status, JSON.stringify(res.json)).toBe(202);
      const task = await env.waitForTask(res.json.task_id, project.api_key, undefined, 120_000);
      expect(task.status).toBe('failed');
      expect(task.error.code).toBe(c.code);
      expect(leaks(task.error.message)).toEqual([]);
    }
    // Both failed after masked pages: the Parquet one once all six were fetched, the CSV one at page 3.
    expect(cases[0]!.src.requests.filter((r) => r.pageSize > 1).length).toBe(6);
    expect(cases[1]!.src.requests.some((r) => r.pageSize > 1 && r.page === 3)).toBe(true);
    const mails = (await smtp.waitFor(before + cases.length, 60_000)).slice(before);
    expect(mails).toHaveLength(cases.length);
    for (const mail of mails) {
      expect(leaks(mail.raw)).toEqual([]);
      expect(leaks(`${mail.parsed.text}\n${mail.parsed.html}`)).toEqual([]);
    }
  });
});

// A date-time paid_at (masked, keep_start 13), shipped_at (the same instant, not masked) and ref
// (the same text, typed string) in Asia/Shanghai: the mask keeps the Shanghai digits, shipped_at is
// Shanghai's wall clock, ref stays as the source wrote it. In CSV with `;`, and in xlsx.
const utcAt = (i: number) => `2026-11-26T${pad(14 + (i % 10), 2)}:${pad(i % 60, 2)}:00Z`;
const shanghai = (i: number) => {
  const h = 14 + (i % 10) + 8;
  return `2026-11-${h >= 24 ? '27' : '26'} ${pad(h % 24, 2)}:${pad(i % 60, 2)}:00`;
};
const zonedRow = (i: number) => ({ id: i + 1, phone: `139${pad(i, 8)}`, paid_at: utcAt(i), shipped_at: utcAt(i), ref: utcAt(i), note: `a;b ${i}` });
const ZONED_TOTAL = 250;
const zonedTemplate = [
  { name: 'id', title: '编号', type: 'integer' },
  { name: 'phone', title: '手机', mask: 'phone' },
  { name: 'paid_at', title: '付款', type: 'datetime', mask: { keep_start: 13, keep_end: 0 } },
  { name: 'shipped_at', title: '发货', type: 'datetime' },
  { name: 'ref', title: '单号', type: 'string' },
  { name: 'note', title: '备注' },
];
const zonedCsv = () =>
  [
    '编号;手机;付款;发货;单号;备注',
    ...Array.from({ length: ZONED_TOTAL }, (_, i) => {
      const r = zonedRow(i);
      return `${r.id};${r.phone.slice(0, 3)}****${r.phone.slice(7)};${shanghai(i).slice(0, 13)}******;${shanghai(i)};${r.ref};"${r.note}"`;
    }),
  ].join('\r\n') + '\r\n';

/** A CSV export of the zoned rows with `;`, Asia/Shanghai and masks, in the service `on`. */
async function zonedCsvExport(on: TestEnv, key: string): Promise<string> {
  const src = await source({ total: ZONED_TOTAL, row: zonedRow });
  const res = await on.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-1', page_size: 100, source_url: src.url, type: 'csv', template: zonedTemplate, csv_delimiter: ';', time_zone: 'Asia/Shanghai' } });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  const task = await on.waitForTask(res.json.task_id, key, undefined, 120_000);
  expect(task.error).toBeNull();
  const body = (await fetchListed(task.files[0])).toString('utf8').replace(/^\ufeff/, '');
  expect(leaks(body, Array.from({ length: ZONED_TOTAL }, (_, i) => zonedRow(i).phone))).toEqual([]);
  return body;
}

describe('masks with time_zone and a CSV dialect', () => {
  it('CSV with ";": the mask keeps the zone\'s digits, a string-typed column keeps the source\'s text', async () => {
    expect(await zonedCsvExport(env, project.api_key)).toBe(zonedCsv());
  });

  it('xlsx: the same, and a string-typed column is text as the source wrote it', async () => {
    const src = await source({ total: ZONED_TOTAL, row: zonedRow });
    const res = await api('POST', '/v1/tasks', { operator_id: 'op-1', page_size: 100, source_url: src.url, type: 'excel', template: zonedTemplate, time_zone: 'Asia/Shanghai' });
    const task = await env.waitForTask(res.json.task_id, project.api_key, undefined, 120_000);
    expect(task.error).toBeNull();
    const { path } = await saved(task.files[0]);
    const sheet = await openpyxlRows(path);
    expect(sheet[0]).toEqual(['编号', '手机', '付款', '发货', '单号', '备注']);
    for (const i of [0, 1, 9, 10, 149, 249]) {
      const [id, phone, paid, shipped, ref, note] = sheet[i + 1]!;
      expect([id, phone, paid, ref, note]).toEqual([i + 1, `139****${pad(i, 8).slice(4)}`, `${shanghai(i).slice(0, 13)}******`, utcAt(i), `a;b ${i}`]);
      // openpyxl reads a datetime cell as its wall-clock value (format-readers.py: "yyyy-mm-dd hh:mm:ss").
      expect(shipped).toBe(shanghai(i));
    }
  });
});

describe('with the page encoder\'s threads on', () => {
  let threaded: TestEnv;
  let key: string;
  beforeAll(async () => {
    threaded = await startTestEnv({ SOURCE_DECODE_THREADS: '2' });
    key = (await threaded.createProject({ source_hosts: ['127.0.0.1'] })).api_key;
  });
  afterAll(async () => {
    await threaded?.close();
  });

  it('the CSV with ";", time_zone and masks is the same, byte for byte', async () => {
    expect(await zonedCsvExport(threaded, key)).toBe(zonedCsv());
  });
});

describe('a hash key rotated while an export runs', () => {
  it('makes the export start over under the new key: the file holds one key\'s hashes', async () => {
    const src = await source({ total: TOTAL, row, delayMs: (r) => (r.pageSize > 1 && r.page >= 3 ? 2000 : 0) });
    const res = await api('POST', '/v1/tasks', { operator_id: 'op-1', page_size: 100, source_url: src.url, template, type: 'jsonl' });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    const id = res.json.task_id as string;
    await env.waitForTask(id, project.api_key, (t) => (t.progress?.pages_done ?? 0) >= 3 || ['succeeded', 'failed', 'cancelled'].includes(t.status));
    expect((await api('POST', `/v1/tasks/${id}/pause`)).status).toBe(202);
    await env.waitForTask(id, project.api_key, (t) => t.status === 'paused');
    const staged = filesUnder(env.config.DATA_DIR).filter((p) => p.includes(id) && p.includes('staging') && !p.endsWith('meta.json'));
    const old = Buffer.from(await maskKeyOf(env.core.database.db, project.project_id, env.core.secrets.destinationKeys), 'hex');
    const oldHash = (i: number) => createHmac('sha256', old).update(rows[i]!.member).digest('hex');
    // The pages staged before the pause hash with the key the probe pinned.
    expect(staged.map((p) => readFileSync(p, 'utf8')).join('')).toContain(oldHash(0));

    expect((await env.api('POST', `/v1/projects/${project.project_id}/rotate-mask-key`, { token: ADMIN })).status).toBe(200);
    const pagesBefore = src.requests.filter((r) => r.pageSize > 1).length;
    expect((await api('POST', `/v1/tasks/${id}/resume`)).status).toBe(202);
    const task = await env.waitForTask(id, project.api_key, undefined, 120_000);
    expect(task.error).toBeNull();
    expect(task.status).toBe('succeeded');
    // Started over: every page asked again after the resume, not only the ones the pause left.
    expect(src.requests.filter((r) => r.pageSize > 1).length - pagesBefore).toBeGreaterThanOrEqual(6);

    const now = Buffer.from(await maskKeyOf(env.core.database.db, project.project_id, env.core.secrets.destinationKeys), 'hex');
    const lines = (await saved(task.files[0])).body.toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.member)).toEqual(rows.map((r) => createHmac('sha256', now).update(r.member).digest('hex')));
  });
});
