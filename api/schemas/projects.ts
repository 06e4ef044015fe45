import { z } from '@hono/zod-openapi';
import { hostPatternRegex } from '../../domain/source/hosts.js';
import { MASK_COLUMN_NAME_MAX, MASK_COLUMNS_MAX, maskSchema } from '../../model/mask.js';
import { projectSettingsSchema } from '../../model/project-settings.js';
import { NO_NUL } from '../openapi-text.js';
import { maxChars, requiredChars } from './chars.js';

const hostList = (max: number, min = 0) =>
  z
    .array(z.string().max(255).regex(hostPatternRegex, 'must be host[:port] or *.domain[:port]'))
    .min(min, 'list at least one host the sources live on')
    .max(max)
    .transform((hosts) => [...new Set(hosts.map((h) => h.toLowerCase()))]);

/** POST /v1/projects: a name, the allow-lists, and the settings (model/project-settings.ts). */
export const createProjectSchema = projectSettingsSchema
  .extend({
    name: requiredChars(100),
    source_hosts: hostList(50, 1),
    callback_hosts: hostList(50).default([]),
    // Where the project's destinations may point (docs/destinations.md); empty: no destination.
    destination_hosts: hostList(50).default([]),
    // The setting's own rules (model/mask.ts), with names counted in code points as the document states them.
    mask_columns: z
      .record(maxChars(MASK_COLUMN_NAME_MAX).min(1), maskSchema)
      .refine((m) => Object.keys(m).length <= MASK_COLUMNS_MAX, `at most ${MASK_COLUMNS_MAX} columns`)
      // propertyNames is JSON Schema's, which the generator's metadata type does not list.
      .openapi({ maxProperties: MASK_COLUMNS_MAX, propertyNames: { minLength: 1, maxLength: MASK_COLUMN_NAME_MAX, pattern: NO_NUL }, description: 'Columns (source keys) masked in every task of the project, whatever its template says (docs/formats.md#masked-columns).' } as never)
      .default({}),
  })
  .strict();

/**
 * PATCH /v1/projects/:id: the creation schema with every field optional and no defaults (a field
 * left out keeps its value); a field creation does not know is refused.
 */
const optionalShape = Object.fromEntries(
  Object.entries(createProjectSchema.shape).map(([k, v]) => [k, (v instanceof z.ZodDefault ? v.removeDefault() : v).optional()]),
);
export const patchProjectSchema = z
  .object(optionalShape)
  .strict()
  .refine((p) => Object.values(p).some((v) => v !== undefined), 'send at least one setting to change')
  .openapi({ minProperties: 1 }) as unknown as z.ZodType<
  Partial<z.output<typeof createProjectSchema>>,
  Partial<z.input<typeof createProjectSchema>>
>;

export const projectListSchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});
