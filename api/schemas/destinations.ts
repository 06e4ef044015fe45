// POST /v1/destinations (docs/destinations.md): an S3-compatible bucket of the customer's, or a
// directory on their SFTP server. The endpoint's (or SFTP host's) host is checked against the
// project's destination_hosts in domain/destinations/.
import { z } from '@hono/zod-openapi';
import { PROBE_FAILURES } from '../../domain/destinations/failures.js';
import { PROBE_STEPS } from '../../domain/destinations/probe.js';
import { SFTP_STEPS } from '../../domain/destinations/sftp-session.js';
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

const s3Destination = z.strictObject({
  name: requiredChars(100),
  kind: z.literal('s3'),
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

// A DNS name (letters, digits, hyphens, dots) or an IP address; IPv6 without brackets (253 at most: the field's max).
const HOST = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$|^[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*$/;
// Printable text without control characters: what goes over the wire as a user name or password.
const PRINTABLE = /^[^\u0000-\u001f\u007f]+$/;

const sftpDestination = z
  .strictObject({
    name: requiredChars(100),
    kind: z.literal('sftp'),
    host: z.string().max(253).regex(HOST, 'must be a host name or an IP address (IPv6 without brackets)').openapi({ example: 'sftp.example.com' }),
    port: z.number().int().min(1).max(65535).default(22),
    username: z.string().min(1).max(128).regex(PRINTABLE, 'no control characters'),
    password: z.string().min(1).max(1024).regex(PRINTABLE, 'no control characters').optional().openapi({ description: 'The password; give it or private_key. Never shown again.' }),
    private_key: z
      .string()
      .min(1)
      .max(16_384)
      .optional()
      .openapi({ description: 'A private key in PEM or OpenSSH format (RSA, ECDSA, Ed25519); give it or password. Never shown again.' }),
    passphrase: z.string().min(1).max(1024).optional().openapi({ description: 'The private key\'s passphrase, if it has one.' }),
    host_key_sha256: z
      .string()
      .regex(/^SHA256:[A-Za-z0-9+/]{43}=?$/, 'must be SHA256: and the base64 SHA-256 of the host key, as `ssh-keygen -lf` prints it')
      .openapi({ description: "The server's host key fingerprint (`ssh-keyscan -t ed25519 host | ssh-keygen -lf -`); a server showing another key is refused before any credential is sent.", example: 'SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s' }),
    path: z
      .string()
      .max(1024)
      .regex(/^\/(?!(?:.*\/)?\.\.?(?:\/|$))[^\u0000-\u001f\u007f\\]*$/, 'must be an absolute directory path, without . or .. segments or control characters')
      .openapi({ description: 'The directory files are delivered into; it must exist (the directories of destination_path below it are made as needed).', example: '/incoming' }),
  })
  .refine((d) => (d.password === undefined) !== (d.private_key === undefined), { message: 'give exactly one of password and private_key', path: ['password'] })
  .refine((d) => d.passphrase === undefined || d.private_key !== undefined, { message: 'a passphrase goes with a private_key', path: ['passphrase'] });

export const createDestinationSchema = z.discriminatedUnion('kind', [s3Destination, sftpDestination]);

export const destinationListSchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});

const s3DestinationObject = z
  .object({
    destination_id: z.string(),
    name: z.string(),
    kind: z.literal('s3'),
    endpoint: z.string(),
    region: z.string(),
    bucket: z.string(),
    prefix: z.string(),
    access_key_id: z.string(),
    path_style: z.boolean(),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('S3Destination');

const sftpDestinationObject = z
  .object({
    destination_id: z.string(),
    name: z.string(),
    kind: z.literal('sftp'),
    host: z.string(),
    port: z.number().int(),
    username: z.string(),
    auth: z.enum(['password', 'private_key']).openapi({ description: 'Which secret was given (it is never shown).' }),
    host_key_sha256: z.string(),
    path: z.string().openapi({ description: 'The directory, ending in /.' }),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('SftpDestination');

export const destinationObject = z.discriminatedUnion('kind', [s3DestinationObject, sftpDestinationObject]).openapi('Destination');

export const destinationPage = z.object({ items: z.array(destinationObject), next_cursor: z.string().nullable() }).openapi('DestinationPage');

export const probeResult = z
  .object({
    ok: z.boolean(),
    key: z.string().optional().openapi({ description: 'The probe object written and removed.' }),
    latency_ms: z.number().int().optional(),
    step: z.enum(PROBE_STEPS).optional().openapi({ description: 'The step that failed.' }),
    error: z.object({ code: z.enum(PROBE_FAILURES), message: z.string() }).optional(),
    host_key_sha256: z.string().optional().openapi({ description: "SFTP: the host key fingerprint the server showed (whether or not it is the pinned one)." }),
    steps: z
      .array(z.object({ step: z.enum(SFTP_STEPS), ok: z.boolean() }))
      .optional()
      .openapi({ description: 'SFTP: each step in order (dns, connect, host_key, auth, permission, write) up to the one that failed.' }),
  })
  .openapi('DestinationTest');
