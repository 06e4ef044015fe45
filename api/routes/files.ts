// Signed links (files[].url): no API key, the signature is the credential.
import { createRoute, z } from '@hono/zod-openapi';
import { DomainError } from '../../domain/errors.js';
import { getTask } from '../../domain/tasks/queries.js';
import type { DownloadBy } from '../../domain/downloads/records.js';
import { checkLink } from '../../platform/links.js';
import { assertDownloadable, sendFile } from '../download.js';
import { rangeHeaders, rangeParameters } from '../range.js';
import { auth, errors, file, openApiApp, type Responses } from '../openapi.js';
import type { ApiDeps, AppEnv } from '../types.js';

// The query is read by the link check itself (a missing or repeated parameter is a bad signature, 403), so
// it is described here rather than validated by a schema.
const query = (name: string, description: string) => ({ name, in: 'query' as const, required: true, description, schema: { type: 'string' as const } });

const route = createRoute({
  method: 'get',
  path: '/{task_id}/{name}',
  operationId: 'downloadFile',
  tags: ['tasks'],
  summary: 'A signed link of files[].url (no API key: the signature is the credential)',
  security: auth.none,
  request: { params: z.object({ task_id: z.string(), name: z.string().openapi({ description: 'files[].name' }) }) },
  parameters: [
    query('expires', 'Unix seconds, as signed.'),
    { ...query('by', "The operator session the link was made for (ops_…), as signed; absent on the project's links."), required: false },
    query('sig', 'The signature.'),
    ...rangeParameters,
  ],
  responses: {
    200: file('The file, streamed.', { 'X-Content-SHA256': { description: 'SHA-256 of the file (hex).', schema: { type: 'string' } }, ...rangeHeaders }),
    206: file('The byte range asked for (Range), streamed.', { 'Content-Range': { description: 'bytes first-last/size', schema: { type: 'string' } }, ...rangeHeaders }),
    ...errors(403, 404, 409, 410),
  } as Responses,
});

export function filesApp(deps: ApiDeps) {
  const app = openApiApp<AppEnv>();
  app.openapi(route, async (c) => {
    const taskId = c.req.param('task_id');
    const name = c.req.param('name');
    const by = c.req.query('by');
    const verdict = checkLink({ secret: deps.secrets.linkSecret, taskId, name, expires: c.req.query('expires'), sig: c.req.query('sig'), by });
    if (verdict === 'tampered') throw new DomainError('invalid_signature', 'the link signature is not valid');
    if (verdict === 'expired') throw new DomainError('link_expired', 'the link has expired; fetch the task again for a fresh one');
    const task = await getTask(deps.database.db, taskId);
    if (!task) throw DomainError.notFound('file');
    assertDownloadable(task);
    const file = task.files.find((f) => f.name === name);
    if (!file) throw DomainError.notFound('file');
    // A link made for an operator session (their center, an e-mail's link) is theirs: its task is their operator's.
    const who: DownloadBy = by === undefined ? { kind: 'link' } : { kind: 'operator', id: task.operatorId, sessionId: by };
    return sendFile(c, deps.storage, file, { db: deps.database.db, config: deps.config, task, via: 'link', by: who });
  });
  return app;
}
