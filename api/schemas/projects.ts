import { z } from 'zod';
import { hostPatternRegex } from '../../domain/source/hosts.js';
import { projectSettingsSchema } from '../../model/project-settings.js';

const hostList = (max: number) =>
  z
    .array(z.string().max(255).regex(hostPatternRegex, 'must be host[:port] or *.domain[:port]'))
    .max(max)
    .transform((hosts) => [...new Set(hosts.map((h) => h.toLowerCase()))]);

/** POST /v1/projects: a name, the allow-lists, and the settings (model/project-settings.ts). */
export const createProjectSchema = projectSettingsSchema.extend({
  name: z.string().trim().min(1).max(100),
  source_hosts: hostList(50).refine((h) => h.length > 0, 'list at least one host the sources live on'),
  callback_hosts: hostList(50).default([]),
});
