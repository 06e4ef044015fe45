// The whole HTTP API in the test's own process, for the route tests (test/routes): createApp over
// an in-memory PGlite of its own per file (from a migrated template, pglite-template.ts), local storage in a temp dir and a fake Temporal
// client (fake-temporal.ts), called with app.request(), no port and no server. Every call notes the
// documented route it hit, so each file can prove it tests the routes the table gives it (routes.ts).
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApiDeps, createApp } from '../../api/app.js';
import { openApiDocument } from '../../api/openapi-document.js';
import { type Database, openDatabase } from '../../db/client.js';
import { finishTask } from '../../domain/tasks/status.js';
import { type Config, loadConfig } from '../../platform/config.js';
import { configureLogging } from '../../platform/logger.js';
import { LocalStorage } from '../../platform/storage/local.js';
import { FakeTemporal } from './fake-temporal.js';
import { migratedTemplate } from './pglite-template.js';

export const ADMIN = 'route-test-admin-token-0123456789';
export const LINK_SECRET = 'route-test-link-secret-0123456789';
const BASE = 'http://dc.test';

export interface Answer {
  status: number;
  /** The body parsed as JSON, or its text when it is not JSON. */
  json: any;
  text: string;
  headers: Headers;
}

export interface CallOptions {
  token?: string | undefined;
  body?: unknown;
  /** A body sent as it is (bad JSON, bad bytes). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface Project {
  project_id: string;
  api_key: string;
  webhook_secret: string;
}

export interface RouteApp {
  app: ReturnType<typeof createApp>['app'];
  config: Config;
  database: Database;
  storage: LocalStorage;
  temporal: FakeTemporal;
  /** The WebSocket's upgrade and hub: attach it to a server to open real sockets (app.request cannot). */
  realtime: ReturnType<typeof createApp>['realtime'];
  /** Documented routes called so far, as "GET /v1/tasks/{task_id}", with the statuses they answered. */
  hits: Map<string, Set<number>>;
  call(method: string, path: string, opts?: CallOptions): Promise<Answer>;
  /** A project registered through the admin API, allowed to read 127.0.0.1. */
  createProject(overrides?: Record<string, unknown>): Promise<Project>;
  /** POST /v1/tasks that must be accepted (202); the task as answered. */
  submit(apiKey: string, body?: Record<string, unknown>): Promise<any>;
  /** Every run start asked for so far has been made (the API starts runs after its answer). */
  drained(): Promise<void>;
  /** Plays a finished run's part: the file in storage and the row succeeded with it. */
  succeed(taskId: string, csv?: string): Promise<void>;
  close(): Promise<void>;
}

/** What a task body needs; the source is never read (no run runs). */
export const taskBody = (extra: Record<string, unknown> = {}) => ({ source_url: 'http://127.0.0.1:9/rows', operator_id: 'op-1', ...extra });

export async function startRouteApp(env: Record<string, string> = {}, extra: Pick<ApiDeps, 'mailbox'> = {}): Promise<RouteApp> {
  configureLogging('error', { pretty: false });
  const dataDir = mkdtempSync(join(tmpdir(), 'dc-routes-'));
  const config = loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LINK_SECRET, PUBLIC_BASE_URL: BASE, ...env });
  const database = await openDatabase({ dataDir, memory: { loadDataDir: await migratedTemplate() } });
  await database.migrate();
  const storage = new LocalStorage(join(dataDir, 'store'));
  const temporal = new FakeTemporal();
  const secrets = { adminToken: ADMIN, linkSecret: LINK_SECRET, adminTokenGenerated: false, destinationKeys: ['route-test-destination-key-0123456789abcdef'] };
  const { app, realtime, starter } = createApp({ config, database, storage, secrets, temporal: temporal.client, ...extra });
  await realtime.hub.ready;
  const routeOf = documentedRoutes(openApiDocument(app, BASE));
  const hits = new Map<string, Set<number>>();

  const call: RouteApp['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | Uint8Array | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.request(path, { method, headers, body: body as RequestInit['body'] });
    const route = routeOf(method, path);
    if (route) hits.set(route, (hits.get(route) ?? new Set()).add(res.status));
    const text = await res.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON (a file, metrics text): the text it is
    }
    return { status: res.status, json, text, headers: res.headers };
  };

  return {
    app,
    config,
    database,
    storage,
    temporal,
    realtime,
    hits,
    call,
    async createProject(overrides = {}) {
      const res = await call('POST', '/v1/projects', { token: ADMIN, body: { name: 'routes', source_hosts: ['127.0.0.1'], ...overrides } });
      if (res.status !== 201) throw new Error(`createProject: ${res.status} ${res.text}`);
      return res.json as Project;
    },
    async submit(apiKey, body = taskBody()) {
      const res = await call('POST', '/v1/tasks', { token: apiKey, body });
      if (res.status !== 202) throw new Error(`submit: ${res.status} ${res.text}`);
      return res.json;
    },
    drained: () => starter.drain(),
    async succeed(taskId, csv = 'id,name\n1,a\n2,b\n') {
      const bytes = Buffer.from(csv);
      const key = `files/${taskId}/export.csv`;
      await storage.putBuffer(key, bytes);
      const file = { name: 'export.csv', key, bytes: bytes.length, rows: csv.trim().split('\n').length - 1, sha256: createHash('sha256').update(bytes).digest('hex') };
      if (!(await finishTask(database.db, taskId, { status: 'succeeded', files: [file], expiresAt: new Date(Date.now() + 3_600_000) }))) {
        throw new Error(`succeed: task ${taskId} had already ended`);
      }
    },
    async close() {
      await starter.drain();
      await realtime.hub.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A route app and two projects of it, a and b (b with `bOverrides`): how most route files start. */
export async function startWithTwoProjects(env: Record<string, string> = {}, bOverrides: Record<string, unknown> = {}) {
  const rt = await startRouteApp(env);
  return { rt, a: await rt.createProject({ name: 'a' }), b: await rt.createProject({ name: 'b', ...bOverrides }) };
}

/** "METHOD /path/{param}" of the documented route a concrete request hits, the most literal first. */
function documentedRoutes(doc: { paths?: Record<string, object> }) {
  const routes = Object.entries(doc.paths ?? {})
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => ({ key: `${m.toUpperCase()} ${path}`, method: m.toUpperCase(), path })))
    .map((r) => ({ ...r, params: (r.path.match(/\{/g) ?? []).length, re: new RegExp(`^${r.path.replace(/\{[^}]+\}/g, '[^/]+')}$`) }))
    .sort((a, b) => a.params - b.params);
  return (method: string, path: string): string | undefined => {
    const bare = path.split('?')[0]!.replace(/\/$/, '') || '/';
    return routes.find((r) => r.method === method.toUpperCase() && r.re.test(bare))?.key;
  };
}
