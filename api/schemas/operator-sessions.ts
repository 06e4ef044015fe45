// POST /v1/operator-sessions (docs/api.md#operator-sessions): what a project asks for, and the session it gets.
import { z } from '@hono/zod-openapi';
import { OPERATOR_PERMISSIONS, OPERATOR_SESSION_MAX_SECONDS } from '../../domain/projects/sessions.js';
import { LOCALES } from '../../model/task.js';
import { requiredChars } from './chars.js';

export const createOperatorSessionSchema = z
  .object({
    operator_id: requiredChars(128).openapi({ description: "The operator whose tasks the session shows (the tasks' operator_id)." }),
    expires_in: z.number().int().min(60).max(OPERATOR_SESSION_MAX_SECONDS).default(3600).openapi({ description: `Seconds until the session ends (60–${OPERATOR_SESSION_MAX_SECONDS}).` }),
    permissions: z
      .array(z.enum(OPERATOR_PERMISSIONS))
      .max(OPERATOR_PERMISSIONS.length)
      .default(['download'])
      .openapi({ description: '`download` is always granted; `pause` covers resume too.' }),
    locale: z.enum(LOCALES).default('en'),
  })
  .strict();

export const operatorSessionSchema = z
  .object({
    session_id: z.string(),
    token: z.string().openapi({ description: 'The bearer token (dco_…); shown this once, only its hash is kept.' }),
    url: z.string().openapi({ description: 'Opens the console as the operator: PUBLIC_BASE_URL/operator#token=<token> (a fragment, never sent to a server).' }),
    operator_id: z.string(),
    permissions: z.array(z.enum(OPERATOR_PERMISSIONS)),
    expires_at: z.string().openapi({ format: 'date-time' }),
    locale: z.enum(LOCALES),
  })
  .openapi('OperatorSession');
