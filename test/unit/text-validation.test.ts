// Bad text at the edge (api/validate.ts, docs/api.md#conventions): a NUL, an unpaired surrogate or bytes that
// are not UTF-8, in any string of a JSON body (keys included, at any depth) or any query or path
// parameter, answer 422 validation_failed naming the field — before any schema, never a 500.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { onError } from '../../api/errors.js';
import { findBadText, textProblem } from '../../api/text.js';
import { jsonBody, pathText, valid } from '../../api/validate.js';

describe('textProblem / findBadText', () => {
  it('accepts ordinary text, emoji (paired surrogates) and other controls', () => {
    for (const s of ['', 'abc', '客户 😀', '\t\r\n\u0001\u007f', '\ud83d\ude00']) expect(textProblem(s)).toBeNull();
  });

  it('refuses NUL and unpaired surrogates, high or low, anywhere in the text', () => {
    for (const s of ['\u0000', 'a\u0000b', 'x\ud800', '\ud800y', '\udc00', 'a\udc00\ud800b']) expect(textProblem(s)).not.toBeNull();
  });

  it('names each bad string by its path, keys included, in document order', () => {
    const body = { a: 'ok', t: { columns: [{ title: 'fine' }, { title: 'x\u0000' }] }, list: ['\ud800'], 'k\u0000': 1, n: 5 };
    expect(findBadText(body)).toEqual([
      { field: 't.columns.1.title', message: 'contains a NUL character (U+0000)' },
      { field: 'list.0', message: 'contains an unpaired UTF-16 surrogate (not valid Unicode text)' },
      { field: 'k\\u0000', message: 'contains a NUL character (U+0000)' },
    ]);
    expect(findBadText('\u0000')).toEqual([{ field: '(body)', message: 'contains a NUL character (U+0000)' }]);
  });

  it('survives any nesting depth and names at most 20 fields', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findBadText(deep)).toHaveLength(1);
    expect(findBadText(Array.from({ length: 100 }, () => '\u0000'))).toHaveLength(20);
  });
});

describe('valid() and jsonBody in an app', () => {
  const app = new Hono();
  app.onError(onError);
  const body = z.object({ name: z.string().trim().min(1), nested: z.object({ title: z.string() }).optional() });
  app.post('/things', jsonBody, valid('json', body), (c) => c.json(c.req.valid('json')));
  app.get('/things', valid('query', z.object({ q: z.string().optional() })), (c) => c.json(c.req.valid('query')));
  app.get('/things/:id', valid('param', z.object({ id: z.string() })), (c) => c.json(c.req.valid('param')));
  const post = (raw: string | Uint8Array) => app.request('/things', { method: 'POST', body: raw, headers: { 'content-type': 'application/json' } });

  async function refused(res: Response, field: string, message: RegExp) {
    expect(res.status).toBe(422);
    const { error } = (await res.json()) as { error: { code: string; message: string; details: { field: string; message: string }[] } };
    expect(error.code).toBe('validation_failed');
    expect(error.details[0]).toMatchObject({ field });
    expect(error.details[0]!.message).toMatch(message);
    expect(error.message).toBe(`${field}: ${error.details[0]!.message}`);
  }

  it('refuses a NUL or a lone surrogate in a body field, even one a transform would have cleaned', async () => {
    await refused(await post('{"name":"a\\u0000"}'), 'name', /NUL/);
    await refused(await post('{"name":"ok","nested":{"title":"\\udfff"}}'), 'nested.title', /unpaired/);
    // trim() would not remove a NUL; the check runs on the raw text, before the schema
    await refused(await post('{"name":" \\u0000 "}'), 'name', /NUL/);
    expect((await post('{"name":"客户 \\ud83d\\ude00"}')).status).toBe(200);
  });

  it('refuses a body that is not UTF-8, naming the field the bad bytes are in', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"ok","nested":{"title":"a'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}')]);
    await refused(await post(bytes), 'nested.title', /not valid UTF-8/);
    const latin1 = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    await refused(await post(latin1), 'name', /not valid UTF-8/);
  });

  it('refuses a bad query parameter (decoded NUL, or escapes that are not UTF-8), even one the schema ignores', async () => {
    await refused(await app.request('/things?q=%00'), 'q', /NUL/);
    await refused(await app.request('/things?other=a%00b'), 'other', /NUL/);
    await refused(await app.request('/things?q=%ED%A0%80'), 'q', /not valid UTF-8/);
    const ok = await app.request('/things?q=50%25%20%E5%AE%A2&x=100%');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ q: '50% 客' });
  });

  it('refuses a NUL in a path parameter', async () => {
    await refused(await app.request('/things/a%00'), 'id', /NUL/);
  });

  it('pathText refuses a NUL or undecodable escapes in any path segment, for routes that do not validate theirs', async () => {
    const paths = new Hono();
    paths.onError(onError);
    paths.use('*', pathText);
    paths.get('/tasks/:id', (c) => c.json({ id: c.req.param('id') }));
    await refused(await paths.request('/tasks/tsk_%00'), 'path', /NUL/);
    await refused(await paths.request('/tasks/%ED%A0%80'), 'path', /not valid UTF-8/);
    expect(await (await paths.request('/tasks/%E5%AE%A2%20x')).json()).toEqual({ id: '客 x' });
    expect((await paths.request('/tasks/100%')).status).toBe(200);
  });
});
