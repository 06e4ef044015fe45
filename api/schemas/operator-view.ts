// What an operator session's token (dco_…) is answered with wherever it reads a task: the task
// list, one task, an action's answer and the WebSocket's events (domain/tasks/view.ts,
// operatorTaskJson). A schema of its own, so the document says exactly what an operator gets:
// never source_url, callback, notify_email, a destination, the schedule or the raw error text.
import { z } from '@hono/zod-openapi';
import { TASK_EVENTS, taskSchema } from './responses.js';

const time = z.iso.datetime({ offset: true });

export const operatorTaskSchema = z
  .object({
    task_id: z.string(),
    operator_id: z.string(),
    type: taskSchema.shape.type,
    file_name: z.string(),
    status: taskSchema.shape.status,
    stage: taskSchema.shape.stage,
    progress: taskSchema.shape.progress,
    files: z.array(
      z.object({
        name: z.string(),
        bytes: z.number().int(),
        rows: z.number().int(),
        url: z.string().openapi({ description: 'A signed link that expires (expires_at): no token needed.' }),
        expires_at: time,
      }),
    ),
    error: z
      .object({
        code: z.string().openapi({ description: 'A task error code (docs/api.md#task-error-codes).' }),
        message: z.string().openapi({ description: "The code's sentence (docs/api.md#task-error-codes), never the technical message." }),
      })
      .nullable(),
    created_at: time,
    finished_at: time.nullable(),
    expires_at: time.nullable(),
  })
  .strict()
  .openapi('OperatorTask', { description: "A task as an operator session's token sees it: its files and how far it is, nothing of where the data comes from or goes." });

export const operatorTaskPage = z.object({ items: z.array(operatorTaskSchema), next_cursor: z.string().nullable() }).openapi('OperatorTaskPage');
export const operatorTaskEvent = z.object({ event: z.enum(TASK_EVENTS), task: operatorTaskSchema }).openapi('OperatorTaskEvent');

/** Said in the description of every answer an operator token may get: which schema it is. */
export const OPERATOR_ANSWER = 'With an operator token (dco_…) the task is an OperatorTask (#/components/schemas/OperatorTask).';
