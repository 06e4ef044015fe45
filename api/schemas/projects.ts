import { z } from '@hono/zod-openapi';
import { hostPatternRegex } from '../../domain/source/hosts.js';
import { projectSettingsSchema } from '../../model/project-settings.js';
import { requiredChars } from './chars.js';

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
