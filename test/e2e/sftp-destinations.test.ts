// SFTP destinations end to end against a real OpenSSH sshd of the customer's (test/support/
// sftp-server.ts), the real service and worker: the test names each step and what failed, an
// export lands whole (read back from the server's disk, byte for byte) with its manifest last, a
// wrong host key fails the task at once with nothing written, a host the admin removed is refused,
// and a delivery after a crash writes on from the temporary file's end (or starts it over when
// that end is not ours, or the file is gone), never leaving a partial file under the final name;
// a destination pinned to the server's RSA host key delivers although ssh2 asks for Ed25519 first.
import { createHash } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tasks } from '../../db/schema.js';
import { type DeliveryDeps, deliverTask } from '../../domain/destinations/deliver.js';
import { tempPathOf } from '../../domain/destinations/sftp-upload.js';
import { newId, randomToken } from '../../platform/crypto.js';
import type { Storage } from '../../platform/storage/index.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { freePort } from '../support/ports.js';
import { type SftpServer, startSftpServer } from '../support/sftp-server.js';
import { type SourceServer, startSource } from '../support/source-server.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

let env: TestEnv;
let server: SftpServer;
let src: SourceServer;
let project: { project_id: string; api_key: string };

beforeAll(async () => {
  [env, server] = await Promise.all([startTestEnv(), startSftpServer()]);
  src = await startSource({ total: 9_000 });
  project = await env.createProject({ destination_hosts: ['127.0.0.1', '*.invalid'] });
}, 120_000);
afterAll(async () => {
  await src?.close();
  await env?.close();
  await server?.stop();
});

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** What the test makes on the server's disk belongs to the login user, as the server's own directory does. */
const asUser = (path: string): string => {
  const owner = statSync(server.incoming);
  chownSync(path, owner.uid, owner.gid);
  return path;
};
/** A fresh directory under the user's writable one, so each test reads only its own files. */
const freshDir = (name: string): string => {
  mkdirSync(join(server.incoming, name));
  return asUser(join(server.incoming, name));
};

const body = (extra: Record<string, unknown> = {}) => ({
  name: 'partner sftp',
  kind: 'sftp',
  host: server.host,
  port: server.port,
  username: server.user,
  private_key: server.privateKey,
  host_key_sha256: server.hostKeySha256,
  path: server.incoming,
  ...extra,
});
const create = async (extra: Record<string, unknown> = {}, token = project.api_key) => env.api('POST', '/v1/destinations', { token, body: body(extra) });
const destination = async (extra: Record<string, unknown> = {}) => {
  const res = await create(extra);
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.destination_id as string;
};
const probe = async (id: string) => (await env.api('POST', `/v1/destinations/${id}/test`, { token: project.api_key })).json;
const submit = async (extra: Record<string, unknown>) => {
  const res = await env.api('POST', '/v1/tasks', { token: project.api_key, body: { source_url: src.url, operator_id: 'op', page_size: 1000, ...extra } });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return res.json.task_id as string;
};
const OTHER_FINGERPRINT = `SHA256:${Buffer.alloc(32, 1).toString('base64').replace(/=+$/, '')}`;

describe('POST /v1/destinations (kind sftp)', () => {
  it('keeps the password or key sealed: never in an answer, only which one was given', async () => {
    const res = await create();
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      destination_id: expect.stringMatching(/^dst_/),
      name: 'partner sftp',
      kind: 'sftp',
      host: '127.0.0.1',
      port: server.port,
      username: server.user,
      auth: 'private_key',
      host_key_sha256: server.hostKeySha256,
      path: `${server.incoming}/`,
      created_at: expect.any(String),
    });
    const got = await env.api('GET', `/v1/destinations/${res.json.destination_id}`, { token: project.api_key });
    expect(got.json).toEqual(res.json);
    const listed = await env.api('GET', '/v1/destinations', { token: project.api_key });
    expect(JSON.stringify(listed.json)).not.toContain('PRIVATE KEY');
  });

  it('refuses what cannot work: a host not on destination_hosts (422), both secrets or neither, a bad fingerprint, a public key, a relative path', async () => {
    const other = await env.createProject({ name: 'no-sftp', destination_hosts: ['sftp.example.com'] });
    const refused = await create({}, other.api_key);
    expect(refused.status).toBe(422);
    expect(refused.json.error.code).toBe('destination_host_not_allowed');
    const metadata = await create({ host: '169.254.169.254' });
    expect([metadata.status, metadata.json.error.code]).toEqual([422, 'destination_host_not_allowed']);
    const cases: Record<string, unknown>[] = [
      { password: 'x' },
      { private_key: undefined },
      { host_key_sha256: 'MD5:aa:bb' },
      { host_key_sha256: 'SHA256:short' },
      { private_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG0= me@host' },
      { private_key: '-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n-----END OPENSSH PRIVATE KEY-----\n' },
      { passphrase: 'only with a key', private_key: undefined, password: 'pw' },
      { path: 'incoming' },
      { path: '/incoming/../etc' },
      { port: 0 },
      { host: 'bad host' },
    ];
    for (const extra of cases) {
      const res = await create(extra);
      expect(res.status, JSON.stringify(extra)).toBe(422);
      expect(res.json.error.code, JSON.stringify(extra)).toBe('validation_failed');
    }
  });
});

describe('POST /v1/destinations/:id/test (kind sftp)', () => {
  it('passes every step with a key, reports the host key it saw (as ssh-keygen -lf prints it) and leaves nothing behind', async () => {
    const dir = freshDir('probe-ok');
    for (const extra of [{}, { private_key: server.pemKey }, ...(server.password ? [{ private_key: undefined, password: server.password }] : [])]) {
      const result = await probe(await destination({ path: dir, ...extra }));
      expect(result, JSON.stringify(Object.keys(extra))).toMatchObject({ ok: true, host_key_sha256: server.hostKeySha256 });
      expect(result.steps).toEqual(['dns', 'connect', 'host_key', 'auth', 'permission', 'write'].map((step) => ({ step, ok: true })));
    }
    expect(server.sshKeygenLine).toContain(` ${server.hostKeySha256} `);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('names the step that failed and why: host key, auth, permission, directory, connect, dns', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ host_key_sha256: OTHER_FINGERPRINT }, 'host_key', 'host_key'],
      [{ private_key: server.strangerKey }, 'auth', 'auth'],
      [{ username: 'nobody-here' }, 'auth', 'auth'],
      ...(server.password ? [[{ private_key: undefined, password: 'not-the-password' }, 'auth', 'auth'] as [Record<string, unknown>, string, string]] : []),
      [{ path: server.locked }, 'permission', 'permission'],
      [{ path: join(server.incoming, 'never-made') }, 'permission', 'directory'],
      [{ port: await freePort() }, 'connect', 'connect'],
      [{ host: 'sftp.nowhere.invalid' }, 'dns', 'dns'],
    ];
    for (const [extra, step, code] of cases) {
      const result = await probe(await destination(extra));
      expect(result, JSON.stringify(extra)).toMatchObject({ ok: false, step, error: { code } });
      const steps = result.steps as { step: string; ok: boolean }[];
      expect(steps.at(-1)).toEqual({ step, ok: false });
      expect(steps.slice(0, -1).every((s) => s.ok)).toBe(true);
      expect(result.error.message).not.toContain('PRIVATE KEY');
      if (server.password) expect(result.error.message).not.toContain(server.password);
    }
    // The host key is reported even when it is not the pinned one: what to compare with the partner's
    // (the one shown first), and every key the server has in the message.
    const wrong = await probe(await destination({ host_key_sha256: OTHER_FINGERPRINT }));
    expect(wrong).toMatchObject({ host_key_sha256: server.hostKeySha256 });
    expect(wrong.error.message).toContain(server.hostKeySha256);
    expect(wrong.error.message).toContain(server.rsaHostKeySha256);
    expect(readdirSync(server.locked)).toEqual([]);
  });
});

describe('delivery onto the SFTP server', () => {
  it('delivers every part of a split export byte for byte, then the manifest last; no temporary file stays', async () => {
    const dir = freshDir('orders');
    // Logged in with the password where the server has one for its user (as root: the dedicated
    // user's), else with a key; the crash tests deliver with a key.
    const login = server.password ? { private_key: undefined, password: server.password } : {};
    const id = await destination({ path: dir, ...login });
    const taskId = await submit({ file_name: 'orders', max_file_rows: 4000, destination_id: id, destination_path: 'daily/{{date}}/{{task_id}}-{{file_name}}' });
    const task = await env.waitForTask(taskId, project.api_key, undefined, 120_000);
    expect(task.status, JSON.stringify(task.error)).toBe('succeeded');
    const sub = `daily/${task.created_at.slice(0, 10)}`;
    expect(task.files.map((f: { name: string }) => f.name)).toEqual(['orders-part-1.csv', 'orders-part-2.csv', 'orders-part-3.csv', 'orders.zip']);
    for (const f of task.files) expect(f.delivered_to).toBe(`sftp://127.0.0.1:${server.port}${dir}/${sub}/${taskId}-${f.name}`);

    const files = server.files(dir);
    expect([...files.keys()].sort()).toEqual([...task.files.map((f: { name: string }) => `${sub}/${taskId}-${f.name}`), `${sub}/${taskId}-manifest.json`].sort());
    for (const f of task.files) {
      const here = Buffer.from(await (await fetch(f.url)).arrayBuffer());
      const there = files.get(`${sub}/${taskId}-${f.name}`)!;
      expect(there.equals(here), f.name).toBe(true);
      expect(sha256(there)).toBe(f.sha256);
    }
    const manifest = JSON.parse(files.get(`${sub}/${taskId}-manifest.json`)!.toString());
    expect(manifest.task).toMatchObject({ task_id: taskId, project_id: project.project_id, type: 'csv', file_name: 'orders' });
    for (const f of manifest.files) expect(f).toMatchObject({ key: `${dir}/${sub}/${taskId}-${f.name}`, sha256: sha256(files.get(`${sub}/${taskId}-${f.name}`)!) });
    // Written last: no file is newer than the manifest.
    const mtime = (name: string) => statSync(join(dir, name)).mtimeMs;
    const manifestAt = mtime(`${sub}/${taskId}-manifest.json`);
    for (const f of task.files) expect(mtime(`${sub}/${taskId}-${f.name}`)).toBeLessThanOrEqual(manifestAt);
  });

  it("delivers to a destination pinned to the server's RSA host key, though ssh2 is shown the Ed25519 one first", async () => {
    const dir = freshDir('rsa-pinned');
    const id = await destination({ path: dir, host_key_sha256: server.rsaHostKeySha256 });
    expect(await probe(id)).toMatchObject({ ok: true, host_key_sha256: server.rsaHostKeySha256 });
    const task = await env.waitForTask(await submit({ file_name: 'rsa', destination_id: id }), project.api_key, undefined, 120_000);
    expect(task.status, JSON.stringify(task.error)).toBe('succeeded');
    const files = server.files(dir);
    const [name] = [...files.keys()].filter((k) => k.endsWith('rsa.csv'));
    expect(name, [...files.keys()].join(', ')).toBeDefined();
    expect(sha256(files.get(name!)!)).toBe(task.files[0].sha256);
    expect(task.files[0].delivered_to).toBe(`sftp://127.0.0.1:${server.port}${dir}/${name}`);
  });

  it('fails at once on a host key that is not the pinned one (destination_host_key_mismatch), writing nothing', async () => {
    const dir = freshDir('mismatch');
    const id = await destination({ path: dir, host_key_sha256: OTHER_FINGERPRINT });
    const started = Date.now();
    const task = await env.waitForTask(await submit({ file_name: 'refused', destination_id: id }), project.api_key, undefined, 120_000);
    expect(task.status).toBe('failed');
    expect(task.error.code).toBe('destination_host_key_mismatch');
    expect(task.error.message).toContain(server.hostKeySha256);
    // One attempt: a retry would wait 2 s first, and nine more would follow.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(readdirSync(dir)).toEqual([]);
    expect(task.files).toHaveLength(1);
    expect(task.files[0].delivered_to).toBeUndefined();
  });

  it('checks the host again at delivery: the admin removed it meanwhile (destination_host_not_allowed), nothing written', async () => {
    const other = await env.createProject({ name: 'moved-sftp', destination_hosts: ['127.0.0.1'] });
    const dir = freshDir('moved');
    const id = (await create({ path: dir }, other.api_key)).json.destination_id;
    const slow = await startSource({ total: 3000, delayMs: (r) => (r.pageSize === 1 ? 0 : 1500) });
    try {
      const res = await env.api('POST', '/v1/tasks', { token: other.api_key, body: { source_url: slow.url, operator_id: 'op', page_size: 1000, destination_id: id } });
      expect(res.status).toBe(202);
      expect((await env.api('PATCH', `/v1/projects/${other.project_id}`, { token: ADMIN, body: { destination_hosts: ['sftp.example.com'] } })).status).toBe(200);
      const task = await env.waitForTask(res.json.task_id, other.api_key, undefined, 120_000);
      expect(task.status).toBe('failed');
      expect(task.error.code).toBe('destination_host_not_allowed');
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await slow.close();
    }
  });

  it('checks the host at submission: one the admin removed from destination_hosts is refused (422)', async () => {
    const other = await env.createProject({ name: 'moving-sftp', destination_hosts: ['127.0.0.1'] });
    const id = (await create({}, other.api_key)).json.destination_id;
    expect((await env.api('PATCH', `/v1/projects/${other.project_id}`, { token: ADMIN, body: { destination_hosts: ['sftp.example.com'] } })).status).toBe(200);
    const res = await env.api('POST', '/v1/tasks', { token: other.api_key, body: { source_url: src.url, operator_id: 'op', destination_id: id } });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('destination_host_not_allowed');
    const tested = await env.api('POST', `/v1/destinations/${id}/test`, { token: other.api_key });
    expect(tested.json).toMatchObject({ ok: false, error: { code: 'host_not_allowed' } });
  });
});

describe('after a crash (deliverTask against the server, our store faked)', () => {
  const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => `line ${i}\n`).join(''));
  const file = { name: 'big.csv', key: 'k', rows: 300_000, bytes: bytes.length, sha256: sha256(bytes) };
  /** Through a proxy that counts what the client sends: whether an attempt wrote on or started over shows there. */
  const newTask = async (dir: string, port = server.port) => {
    const destinationId = await destination({ path: dir, port });
    const [task] = await env.core.database.db
      .insert(tasks)
      .values({ id: newId('tsk'), projectId: project.project_id, operatorId: 'op', type: 'csv', fileName: 'big', sourceUrl: src.url, pageSize: 10, priority: 0, options: { destination_id: destinationId }, status: 'running', stage: 'delivering', requestHash: randomToken(16) })
      .returning();
    return task!;
  };
  /** Our store, counting what it hands out: a resumed upload still reads (and hashes) every byte. */
  const storage = { getStream: async () => Readable.from([bytes.subarray(0, 1 << 20), bytes.subarray(1 << 20)]) } as unknown as Storage;
  const deps = (): DeliveryDeps => ({ db: env.core.database.db, storage, keys: env.core.secrets.destinationKeys, partBytes: 5 << 20, timeoutMs: 10_000 });
  const finalOf = (dir: string, taskId: string) => join(dir, taskId, 'big.csv');

  it('writes on from the end of the temporary file an earlier attempt left, and renames it whole', async () => {
    const dir = freshDir('resume');
    const proxy = await startTcpProxy(`http://127.0.0.1:${server.port}`);
    const task = await newTask(dir, Number(new URL(proxy.url).port));
    mkdirSync(join(dir, task.id));
    asUser(join(dir, task.id));
    const temp = tempPathOf(`${dir}/${task.id}/big.csv`, task.id, file.sha256);
    // What a worker killed mid-upload leaves: the first 1.5 MB, in the temporary file only.
    writeFileSync(temp, bytes.subarray(0, 1_500_000));
    asUser(temp);
    const report = await deliverTask(deps(), task, [file], { delivered: [] }, () => {}).finally(() => proxy.close());
    expect(report.files[0]!.delivered_to).toContain(`/${task.id}/big.csv`);
    expect(report.resumedBytes).toBe(1_500_000);
    expect(server.files(join(dir, task.id)).get('big.csv')!.equals(bytes)).toBe(true);
    expect(existsSync(temp)).toBe(false);
    // Wrote on: what went up is the rest of the file (and SSH's own bytes), not the whole file again.
    expect(proxy.bytesUp()).toBeLessThan(bytes.length - 1_000_000);
  });

  it("starts over when the temporary file's end is not ours, and never shows a partial file under the final name", async () => {
    const dir = freshDir('restart');
    const proxy = await startTcpProxy(`http://127.0.0.1:${server.port}`);
    const task = await newTask(dir, Number(new URL(proxy.url).port));
    mkdirSync(join(dir, task.id));
    asUser(join(dir, task.id));
    const temp = tempPathOf(`${dir}/${task.id}/big.csv`, task.id, file.sha256);
    const torn = Buffer.from(bytes.subarray(0, 1_500_000));
    torn.fill(0, 1_400_000);
    writeFileSync(temp, torn);
    asUser(temp);
    // Before the delivery: only the temporary file, nothing under the final name.
    expect(existsSync(finalOf(dir, task.id))).toBe(false);
    const report = await deliverTask(deps(), task, [file], { delivered: [] }, () => {}).finally(() => proxy.close());
    expect(report.resumedBytes).toBe(0);
    expect(server.files(join(dir, task.id)).get('big.csv')!.equals(bytes)).toBe(true);
    expect(readdirSync(join(dir, task.id)).sort()).toEqual(['big.csv', 'manifest.json']);
    // Started over: the whole file went up.
    expect(proxy.bytesUp()).toBeGreaterThan(bytes.length);
  });

  it('starts over, not failing on a missing directory, when a partner removed the temporary file after the attempt saw it', async () => {
    const dir = freshDir('vanished');
    const task = await newTask(dir);
    mkdirSync(join(dir, task.id));
    asUser(join(dir, task.id));
    const temp = tempPathOf(`${dir}/${task.id}/big.csv`, task.id, file.sha256);
    writeFileSync(temp, bytes.subarray(0, 1_500_000));
    asUser(temp);
    // The partner's clean-up of `.part` files runs after the attempt found the temporary file and
    // before it opens it to write on: when our store is first read, in between.
    let reads = 0;
    const store = {
      getStream: async () => {
        if (reads++ === 0) rmSync(temp);
        return storage.getStream('k');
      },
    } as unknown as Storage;
    const report = await deliverTask({ ...deps(), storage: store }, task, [file], { delivered: [] }, () => {});
    expect(reads).toBe(2);
    expect(report.resumedBytes).toBe(0);
    expect(server.files(join(dir, task.id)).get('big.csv')!.equals(bytes)).toBe(true);
    expect(readdirSync(join(dir, task.id)).sort()).toEqual(['big.csv', 'manifest.json']);
  });

  it('a stored file whose bytes are not its sha256 fails for good (storage_failed) and leaves no temporary file', async () => {
    const dir = freshDir('bad-sha');
    const task = await newTask(dir);
    const err = await deliverTask(deps(), task, [{ ...file, sha256: sha256(Buffer.from('other')) }], { delivered: [] }, () => {}).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'storage_failed', retryable: false });
    expect(readdirSync(join(dir, task.id))).toEqual([]);
  });
});
