// POST /v1/destinations (docs/destinations.md): an S3-compatible bucket of the customer's. The
// endpoint's host is checked against the project's destination_hosts in domain/destinations/.
import { z } from '@hono/zod-openapi';
import { PROBE_FAILURES } from '../../domain/destinations/failures.js';
import { PROBE_STEPS } from '../../domain/destinations/probe.js';
import { maxChars, requiredChars } from './chars.js';

// The refinements run even when .url() has refused the text already (zod keeps checking): parse safely.
const parsed = (u: string): URL | null => {
  try {
    return new URL(u);
  } catch {
    return null;
  }
};

const origin = z
  .string()
  .max(2048)
  .url('must be an http(s) URL')
  .refine((u) => /^https?:$/.test(parsed(u)?.protocol ?? 'http:'), 'must be http:// or https://')
  .refine((u) => {
    const url = parsed(u);
    return !url || (url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password);
  }, 'must be scheme://host[:port]: no path, query or credentials')
  .openapi({ description: 'The S3 API origin, e.g. https://s3.eu-west-1.amazonaws.com or https://<account>.r2.cloudflarestorage.com.' });

// S3's bucket naming rules (3–63 of lowercase letters, digits, dots and hyphens); SeaweedFS and MinIO keep them too.
const bucket = z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name (3–63 lowercase letters, digits, dots, hyphens)');

export const createDestinationSchema = z.strictObject({
  name: requiredChars(100),
  kind: z.enum(['s3']),
  endpoint: origin,
  region: z.string().regex(/^[a-z0-9-]{1,32}$/, 'must be a region name such as us-east-1 (R2: auto)').default('us-east-1'),
  bucket,
  prefix: maxChars(512)
    .regex(/^(?!(?:.*\/)?\.\.?(?:\/|$))[^\u0000-\u001f\u007f]*$/, 'no control characters, no . or .. segments')
    .default(''),
  access_key_id: z.string().min(1).max(256).regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces'),
  secret_access_key: z.string().min(1).max(256).regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces'),
  path_style: z.boolean().default(true),
});

export const destinationListSchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});

export const destinationObject = z
  .object({
    destination_id: z.string(),
    name: z.string(),
    kind: z.enum(['s3']),
    endpoint: z.string(),
    region: z.string(),
    bucket: z.string(),
    prefix: z.string(),
    access_key_id: z.string(),
    path_style: z.boolean(),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Destination');

export const destinationPage = z.object({ items: z.array(destinationObject), next_cursor: z.string().nullable() }).openapi('DestinationPage');

export const probeResult = z
  .object({
    ok: z.boolean(),
    key: z.string().optional().openapi({ description: 'The probe object written and removed.' }),
    latency_ms: z.number().int().optional(),
    step: z.enum(PROBE_STEPS).optional().openapi({ description: 'The step that failed.' }),
    error: z.object({ code: z.enum(PROBE_FAILURES), message: z.string() }).optional(),
  })
  .openapi('DestinationTest');
