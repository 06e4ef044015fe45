// /openapi.json is a valid OpenAPI 3.1 document that names every route the app serves, and /docs
// is the reference page with nothing but our own scripts.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, describe, expect, it } from 'vitest';
import { STATUS } from '../../api/errors.js';
import { API_ERROR_CODES } from '../../model/errors.js';
import { configureLogging } from '../../platform/logger.js';
import { offlineApp } from '../../scripts/openapi-document.js';

configureLogging('error', { pretty: false });
const api = offlineApp('http://dc.example:8080');
afterAll(() => api.close());

/** Routes that are not the API: pages and the description itself. */
const NOT_API = [/^\/$/, /^\/operator$/, /^\/mails$/, /^\/console(\/|$)/, /^\/docs(\/|$)/, /^\/openapi\.json$/];

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1, served at /openapi.json, with the error envelope, both auth schemes, the WebSocket and the callback', async () => {
    const res = await api.app.request('/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.servers).toEqual([{ url: 'http://dc.example:8080' }]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['adminToken', 'operatorToken', 'projectKey']);
    // An operator token opens its operator's tasks and actions, the socket and its own downloads, nothing else.
    const operatorRoutes = Object.entries(doc.paths).flatMap(([path, ops]: [string, any]) =>
      Object.entries(ops).filter(([, op]: [string, any]) => op.security?.some((s: object) => 'operatorToken' in s)).map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(operatorRoutes.sort()).toEqual(
      ['GET /v1/downloads', 'GET /v1/downloads/count', 'GET /v1/tasks', 'GET /v1/tasks/counts', 'GET /v1/tasks/{task_id}', 'GET /v1/tasks/{task_id}/download', 'GET /v1/ws', ...['cancel', 'pause', 'resume', 'retry'].map((a) => `POST /v1/tasks/{task_id}/${a}`)].sort(),
    );
    expect(doc.components.schemas.Error.properties.error.required).toEqual(expect.arrayContaining(['code', 'message', 'request_id']));
    // Every documented refusal carries the envelope.
    const submit = doc.paths['/v1/tasks'].post;
    expect(submit.responses['422'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(submit.requestBody.content['application/json'].schema.required).toEqual(['source_url', 'operator_id']);
    expect(submit.security).toEqual([{ projectKey: [] }]);
    // Every JSON body the API accepts refuses fields it does not know, and says so (each kind of a oneOf body too).
    const resolve = (schema: any) => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);
    const bodies = Object.entries(doc.paths).flatMap(([path, ops]: [string, any]) =>
      Object.entries(ops).flatMap(([method, op]: [string, any]) => {
        const schema = op.requestBody?.content?.['application/json']?.schema;
        if (!schema) return [];
        const at = `${method.toUpperCase()} ${path}`;
        const whole = resolve(schema);
        const kinds = whole.oneOf && whole.additionalProperties === undefined ? whole.oneOf : undefined;
        return (kinds ?? [whole]).map((member: any, i: number) => ({ at: kinds ? `${at} (oneOf ${i})` : at, schema: resolve(member) }));
      }),
    );
    expect(bodies.length).toBeGreaterThanOrEqual(8);
    for (const { at, schema } of bodies) expect(schema.additionalProperties, at).toBe(false);
    const ws = doc.paths['/v1/ws'].get;
    expect(ws.description).toContain('{"subscribe": "*"}');
    expect(ws['x-websocket'].server[0]).toEqual({ $ref: '#/components/schemas/TaskEvent' });
    const callback = doc.webhooks['task.callback'].post;
    expect(callback.parameters.map((p: any) => `${p.in}:${p.name}`).sort()).toEqual(['header:webhook-id', 'header:webhook-signature', 'header:webhook-timestamp']);
    expect(callback.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CallbackEvent' });
  });

  it('describes every route of the app with its method', async () => {
    const doc = (await (await api.app.request('/openapi.json')).json()) as any;
    const served = new Set(
      api.app.routes
        .filter((r) => r.method !== 'ALL' && !NOT_API.some((re) => re.test(r.path)))
        .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:([^/]+)/g, '{$1}')}`),
    );
    const documented = new Set(Object.entries(doc.paths as Record<string, object>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)));
    expect(served.size).toBeGreaterThan(25);
    expect([...served].filter((r) => !documented.has(r))).toEqual([]);
    // And nothing is documented that the app does not serve.
    expect([...documented].filter((r) => !served.has(r))).toEqual([]);
  });
});

describe('the error answers of the OpenAPI document', () => {
  const codesAt = (status: number) => API_ERROR_CODES.filter((c) => STATUS[c] === status);

  it("name, under each status, every code api/errors.ts answers with at that status, and no other status's code", async () => {
    const doc = (await (await api.app.request('/openapi.json')).json()) as any;
    const seen = new Set<number>();
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [key, answer] of Object.entries(op.responses as Record<string, any>)) {
          if (answer.content?.['application/json']?.schema?.$ref !== '#/components/schemas/Error') continue;
          const status = Number(key);
          const at = `${method.toUpperCase()} ${path} ${key}`;
          const named = new Set(answer.description.match(/\b[a-z]+(?:_[a-z]+)+\b/g));
          expect(codesAt(status).filter((c) => !answer.description.includes(c)), at).toEqual([]);
          // Codes with an underscore only: `expired` or `conflict` may be plain words of a sentence.
          expect(API_ERROR_CODES.filter((c) => named.has(c) && STATUS[c] !== status), at).toEqual([]);
          seen.add(status);
        }
      }
    }
    // The statuses whose codes are many and were once listed by hand.
    for (const status of [409, 422, 500, 502, 503]) expect(seen, String(status)).toContain(status);
  });
});

describe('/docs', () => {
  it('is an HTML page whose scripts are all served by the API itself', async () => {
    const res = await api.app.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const sources = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]*)"/g)].map((m) => m[1]!);
    expect(sources).toEqual(['/docs/scalar.js']);
    // No address of another host anywhere: no CDN script, stylesheet or font.
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).toContain('"url": "/openapi.json"');
    const script = await api.app.request('/docs/scalar.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect((await script.text()).length).toBeGreaterThan(100_000);
  });
});
