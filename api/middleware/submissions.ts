// dc_task_submissions_total: every submission counted once by outcome. The handler says
// accepted or deduplicated; anything refused before or in it is rate_limited or rejected with its code.
import { createMiddleware } from 'hono/factory';
import { DomainError } from '../../domain/errors.js';
import { metrics } from '../../platform/metrics.js';
import type { AppEnv } from '../types.js';

export const countSubmission = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const principal = c.get('principal');
  const project_id = principal?.kind === 'project' ? principal.project.id : '';
  const submitted = c.get('submitted');
  if (submitted) {
    metrics.submissions.inc({ project_id, outcome: submitted, code: '' });
    return;
  }
  const code = c.error instanceof DomainError ? c.error.code : c.res.status >= 500 ? 'internal_error' : `http_${c.res.status}`;
  if (code === 'rate_limited') metrics.submissions.inc({ project_id, outcome: 'rate_limited', code: '' });
  else metrics.submissions.inc({ project_id, outcome: 'rejected', code });
});
