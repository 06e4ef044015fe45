// The task requests as zod schemas: what the handlers validate with (and, later, what the API
// reference is generated from).
import { z } from 'zod';
import { taskSplitFields } from '../../domain/formats/split.js';
import { areaSchema } from '../../domain/formats/template/areas.js';
import { templateField } from '../../domain/formats/template/template.js';
import { TASK_STAGES, TASK_STATUSES } from '../../model/task.js';

// Keeps what a file system, a shell or a Content-Disposition header could trip on out of names.
const sanitizeFileName = (s: string) =>
  s.normalize('NFC').replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_').replace(/^[.\s]+|[.\s]+$/g, '').slice(0, 120);

export const submitSchema = z.object({
  source_url: z.string().max(4096).url('must be an http(s) URL'),
  operator_id: z.string().trim().min(1).max(128),
  type: z.enum(['csv', 'excel', 'xlsx']).default('csv').transform((t) => (t === 'xlsx' ? 'excel' : t)),
  file_name: z.string().max(200).transform(sanitizeFileName).pipe(z.string().min(1, 'has no usable characters')).optional(),
  title: z.string().max(500).optional(),
  summary: z.string().max(20_000).optional(),
  template: templateField.optional(),
  header: areaSchema.optional(),
  footer: areaSchema.optional(),
  ...taskSplitFields,
  callback: z.string().max(4096).url('must be an http(s) URL').optional(),
  page_size: z.number().int().min(100).max(1000).default(500),
  priority: z.number().int().min(1).max(5).default(3),
});

export const idempotencyHeader = z.object({
  'idempotency-key': z.string().min(1, 'length 1 to 255').max(255, 'length 1 to 255').optional(),
});
export const idempotencyFieldNames = { 'idempotency-key': 'Idempotency-Key' };

export const filterSchema = z.object({
  operator_id: z.string().max(128).optional(),
  status: z.enum(TASK_STATUSES).optional(),
  // Creation time window: created_after inclusive, created_before exclusive (ISO 8601).
  created_after: z.iso.datetime({ offset: true }).transform((s) => new Date(s)).optional(),
  created_before: z.iso.datetime({ offset: true }).transform((s) => new Date(s)).optional(),
});

export const listSchema = filterSchema.extend({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});

/** GET /v1/admin/tasks(/counts): the project's filters plus the project and the stage. */
export const adminFilterSchema = filterSchema.extend({
  project_id: z.string().max(100).optional(),
  stage: z.enum(TASK_STAGES).optional(),
});

export const adminListSchema = adminFilterSchema.extend({
  limit: listSchema.shape.limit,
  cursor: listSchema.shape.cursor,
});
