// GET /v1/usage and GET /v1/admin/usage (docs/usage.md): a range of UTC dates, both ends included,
// of at most MAX_USAGE_DAYS days (a longer or reversed one is a 422 from domain/usage/usage.ts).
import { z } from '@hono/zod-openapi';
import { MAX_USAGE_DAYS } from '../../domain/usage/usage.js';

const date = (what: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
    .openapi({ description: `${what} (a UTC date, YYYY-MM-DD, included); the range spans at most ${MAX_USAGE_DAYS} days.`, example: '2026-11-01' });

export const usageQuery = z.object({ from: date('The first day'), to: date('The last day') });

export const adminUsageQuery = usageQuery.extend({
  project_id: z.string().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().max(200).optional(),
});

const figures = {
  tasks: z.number().int().openapi({ description: 'Tasks submitted (API, sync exports, schedule runs).' }),
  succeeded: z.number().int().openapi({ description: 'Tasks that ended succeeded.' }),
  failed: z.number().int().openapi({ description: 'Tasks that ended failed (a retried task that fails again counts again).' }),
  rows: z.number().int().openapi({ description: 'Rows of the files of the tasks that succeeded.' }),
  bytes: z.number().int().openapi({ description: 'Bytes of the files of the tasks that succeeded.' }),
  deliveries: z.number().int().openapi({ description: "Tasks whose files were delivered to a destination." }),
  emails: z.number().int().openapi({ description: 'E-mails sent (notify_email, one per recipient).' }),
};

const usageDaySchema = z.object({ date: z.string().openapi({ description: 'A UTC date, YYYY-MM-DD.' }), ...figures }).openapi('UsageDay');

export const usageSchema = z
  .object({
    days: z.array(usageDaySchema).openapi({ description: 'Every day of the range, oldest first; a day with no use holds zeros.' }),
    stored_bytes: z.number().int().openapi({ description: "Bytes of the project's live files now (falls as they expire)." }),
  })
  .openapi('Usage');

const projectUsageSchema = z
  .object({ project_id: z.string(), ...figures, stored_bytes: usageSchema.shape.stored_bytes })
  .openapi('ProjectUsage');

export const adminUsagePage = z
  .object({
    items: z.array(projectUsageSchema).openapi({ description: 'The range\'s totals per project with any use in it or any file stored, by project id.' }),
    next_cursor: z.string().nullable(),
  })
  .openapi('ProjectUsagePage');
