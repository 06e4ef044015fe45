// Signed links (files[].url): no API key, the signature is the credential.
import { Hono } from 'hono';
import { DomainError } from '../../domain/errors.js';
import { getTask } from '../../domain/tasks/queries.js';
import { checkLink } from '../../platform/links.js';
import { assertDownloadable, sendFile } from '../download.js';
import type { ApiDeps, AppEnv } from '../types.js';

export function filesApp(deps: ApiDeps) {
  const app = new Hono<AppEnv>();
  app.get('/:task_id/:name', async (c) => {
    const taskId = c.req.param('task_id');
    const name = c.req.param('name');
    const verdict = checkLink({ secret: deps.secrets.linkSecret, taskId, name, expires: c.req.query('expires'), sig: c.req.query('sig') });
    if (verdict === 'tampered') throw new DomainError('invalid_signature', 'the link signature is not valid');
    if (verdict === 'expired') throw new DomainError('link_expired', 'the link has expired; fetch the task again for a fresh one');
    const task = await getTask(deps.database.db, taskId);
    if (!task) throw DomainError.notFound('file');
    assertDownloadable(task);
    const file = task.files.find((f) => f.name === name);
    if (!file) throw DomainError.notFound('file');
    return sendFile(c, deps.storage, file);
  });
  return app;
}
