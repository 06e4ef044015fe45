// The one place that reads process.env. Everything else receives a Config.
import { z } from 'zod';
import { parseProxyEntry } from './client-address.js';

const port = z.coerce.number().int().min(1).max(65535);
const positiveInt = z.coerce.number().int().positive();
const optionalUrl = z.url().optional();

const schema = z.object({
  PORT: port.default(8080),
  DATA_DIR: z.string().min(1).default('./data'),
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  // Signs download links; generated and kept in DATA_DIR when unset (see platform/secrets.ts).
  LINK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  // Seal destinations' secret keys (AES-256-GCM, platform/sealed.ts): a comma-separated list, the
  // first seals, every one opens (rotation: docs/destinations.md). Unset: one generated and kept in DATA_DIR.
  DESTINATION_KEYS: z
    .string()
    .transform((v) => v.split(',').map((k) => k.trim()).filter(Boolean))
    .pipe(z.array(z.string().min(32, 'each key must be at least 32 characters')).min(1))
    .optional(),
  PUBLIC_BASE_URL: optionalUrl,
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[\w.-]+:\d+$/, 'must be host:port')
    .optional(),
  TEMPORAL_PORT: port.default(7233),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('download-center'),
  S3_ENDPOINT: optionalUrl,
  S3_ACCESS_KEY: z.string().optional(),
  S3_SECRET_KEY: z.string().optional(),
  S3_BUCKET: z.string().default('download-center'),
  S3_REGION: z.string().default('us-east-1'),
  // Direct downloads (docs/adr/0015-direct-downloads.md): with S3, files[].url is a presigned GET
  // of the object, naming the bucket as clients reach it (S3_PUBLIC_ENDPOINT, default S3_ENDPOINT),
  // or the same path and query on a CDN in front of the bucket (PUBLIC_DOWNLOAD_BASE). `off` keeps
  // the links through the API, for a bucket clients cannot reach.
  S3_PUBLIC_ENDPOINT: optionalUrl,
  PUBLIC_DOWNLOAD_BASE: optionalUrl,
  DIRECT_DOWNLOADS: z
    .enum(['on', 'off'])
    .default('on')
    .transform((v) => v === 'on'),
  // `npm run worker` answers GET /healthz on this port when set (container and Kubernetes probes).
  HEALTH_PORT: port.optional(),
  // Delivery into destinations (docs/destinations.md): files above DELIVERY_PART_BYTES go as a
  // multipart upload of parts that size (S3's smallest part is 5 MiB; each part is held in memory
  // once), and each request to the bucket must answer within DELIVERY_TIMEOUT_MS.
  DELIVERY_PART_BYTES: positiveInt.min(5 * 1024 * 1024, 'at least 5 MiB (S3\'s smallest part)').max(512 * 1024 * 1024).default(8 * 1024 * 1024),
  DELIVERY_TIMEOUT_MS: positiveInt.default(60_000),
  // Operational knobs with safe defaults, documented in docs/operations.md#configuration.
  LINK_TTL_SECONDS: positiveInt.default(24 * 3600),
  MAX_BODY_BYTES: positiveInt.default(256 * 1024),
  // Idle limit of each phase of a source request (waiting for the headers, then between two body
  // chunks); SOURCE_REQUEST_DEADLINE_MS bounds the whole request. Unset: max(120 s, 2 × SOURCE_TIMEOUT_MS).
  SOURCE_TIMEOUT_MS: positiveInt.default(30_000),
  SOURCE_REQUEST_DEADLINE_MS: positiveInt.optional(),
  SOURCE_MAX_PAGE_BYTES: positiveInt.default(64 * 1024 * 1024),
  // A preview (POST /v1/tasks/preview) holds its pages in the API process: each page at most
  // PREVIEW_MAX_PAGE_BYTES, all its sheets' pages together at most PREVIEW_MAX_BYTES (422 beyond).
  PREVIEW_MAX_PAGE_BYTES: positiveInt.default(4 * 1024 * 1024),
  PREVIEW_MAX_BYTES: positiveInt.default(16 * 1024 * 1024),
  // A body arriving slower than this many bytes a second, over each SOURCE_RATE_WINDOW_MS from its
  // headers on, has stalled: it fails (transient, retried) at once rather than at the deadline. 0: off.
  SOURCE_MIN_BYTES_PER_SECOND: z.coerce.number().int().min(0).default(1024),
  SOURCE_RATE_WINDOW_MS: positiveInt.min(100).default(10_000),
  // Threads that parse and encode CSV pages beside the one running the requests (domain/staging/
  // page-encoder.ts). Default 0, all on that one: on 2 cores a thread costs more than it frees, the
  // source and Temporal needing the other core (ADR 0019); a worker with cores to spare may set it.
  SOURCE_DECODE_THREADS: z.coerce.number().int().min(0).max(64).default(0),
  // Threads that encode a Parquet export's row groups as its lanes store their pieces (ADR 0056).
  // Default 0, on the lanes' thread: on 2 cores a thread made the export slower (1M rows: 5.4-6.4
  // s and 2.6-2.8 worker CPU s against 4.3-4.5 s and 2.2 CPU s), the source and Temporal needing
  // the other core, as for SOURCE_DECODE_THREADS; a worker with cores to spare may set it.
  PARQUET_ENCODE_THREADS: z.coerce.number().int().min(0).max(64).default(0),
  // What a Parquet export's lanes stage: its columns' values with their row groups (ADR 0056), or
  // JSON lines as 1.0 did, which every worker's render reads: for a rolling upgrade from 1.0, whose
  // workers cannot read values (docs/operations.md, "Upgrading").
  PARQUET_STAGING: z.enum(['values', 'lines']).default('values'),
  SOURCE_RETRY_INITIAL_MS: positiveInt.default(1000),
  // The ceiling on a project's source_retry_max_attempts (its own setting, default 5, picks below it).
  SOURCE_RETRY_MAX_ATTEMPTS: positiveInt.default(20),
  // Activities one worker runs at once (each fetch lane and each render is one).
  WORKER_MAX_ACTIVITIES: positiveInt.default(16),
  // A worker process's niceness (0 to 19): below the API's, so a caller never waits for the CPU
  // behind exports where both share cores (docs/adr/0057-api-first-under-export-load.md). 0: the same as the API.
  WORKER_NICE: z.coerce.number().int().min(0).max(19).default(10),
  // Connections a process keeps to Postgres (DATABASE_URL). npm start's worker process uses 2: its
  // queries run on the API process's PGlite, and each one waiting there is one an API request waits behind.
  DATABASE_POOL_MAX: positiveInt.default(10),
  // The largest export accepted (the source's total): ~1 GB of CSV is ~15 M rows. It also bounds the
  // workflow's plan and history (≤ 200,000 pages at page_size 100, ~12,000 events).
  MAX_EXPORT_ROWS: positiveInt.default(20_000_000),
  // The most files (parts) one task's output may be split into; a task whose split limits would make
  // more fails too_many_parts. 1,000 keeps everything that lists a task's files small: the task JSON
  // and its signed links, a callback, an e-mail's lines, a destination's manifest.json and the
  // render activity's result in workflow history (~200 bytes a file, far below its 2 MB limit).
  MAX_PARTS: positiveInt.max(10_000).default(1000),
  CLEANUP_INTERVAL_MINUTES: positiveInt.default(10),
  // Expiry's batches (domain/tasks/expiry.ts): tasks per batch (one read, their files, one short
  // UPDATE, so a batch holds its rows and counter rows for milliseconds) and store deletions at once.
  CLEANUP_BATCH_SIZE: positiveInt.max(10_000).default(500),
  CLEANUP_DELETE_CONCURRENCY: positiveInt.max(64).default(8),
  // Callbacks (activities/notify.ts): per-attempt timeout, then backoff with jitter within a window.
  CALLBACK_TIMEOUT_MS: positiveInt.max(120_000).default(10_000),
  CALLBACK_RETRY_INITIAL_MS: positiveInt.default(5_000),
  CALLBACK_RETRY_MAX_INTERVAL_MS: positiveInt.default(3600_000),
  CALLBACK_RETRY_WINDOW_MS: positiveInt.max(72 * 3600_000).default(24 * 3600_000),
  // E-mail (docs/notifications.md#5-e-mail): the SMTP server, smtp:// or smtps:// (credentials allowed,
  // never logged), and the sender. `npm start` without SMTP_URL catches the mail itself
  // (platform/mail-catcher.ts); a worker alone without it records each mail as failed.
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s/?#]+(?::\d+)?\/?(?:\?\S*)?$/, 'must be smtp://[user:password@]host[:port] or smtps://…')
    .refine((v) => URL.canParse(v), 'must be smtp://[user:password@]host[:port] or smtps://…')
    .optional(),
  EMAIL_FROM: z
    .string()
    .max(320)
    .regex(/^(?:[^<>\r\n"]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/, 'must be an address, or a name and <address>')
    .default('Download Center <download-center@localhost>'),
  // POST /v1/tasks/sync (api/routes/sync.ts): row limit, concurrent sync exports per API process, wait.
  SYNC_MAX_ROWS: positiveInt.default(10_000),
  SYNC_SLOTS: positiveInt.default(4),
  SYNC_TIMEOUT_MS: positiveInt.default(60_000),
  // WebSocket /v1/ws (api/ws/realtime.ts): progress throttle and per-connection limits.
  WS_PROGRESS_INTERVAL_MS: positiveInt.default(250),
  WS_MAX_FRAME_BYTES: positiveInt.default(4096),
  WS_MAX_SUBSCRIPTIONS: positiveInt.default(100),
  WS_IDLE_MS: positiveInt.default(60_000),
  WS_PING_MS: positiveInt.default(30_000),
  // How often an open socket's key is checked again (also at once on any key change): a key past
  // its rotation grace or revoked closes its sockets within this time.
  WS_AUTH_RECHECK_MS: positiveInt.default(5_000),
  // WebSockets one API process holds at once (503 at the upgrade beyond), and how much unread data
  // a client may have before progress frames wait (coalesced) and a final event closes it (1013).
  WS_MAX_CONNECTIONS: positiveInt.default(10_000),
  WS_MAX_BUFFERED_BYTES: positiveInt.default(1 << 20),
  // Browser origins allowed to open /v1/ws besides the service's own (comma-separated, or `*`).
  WS_ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const origins: string[] = [];
      for (const item of (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
        const origin = item === '*' ? '*' : normalizeOrigin(item);
        if (origin === null) {
          ctx.addIssue({ code: 'custom', message: `"${item}" is not an origin (scheme://host[:port], http or https, no path) or *` });
          return z.NEVER;
        }
        origins.push(origin);
      }
      return origins;
    }),
  // Proxies in front of the API whose X-Forwarded-For is believed (docs/downloads.md#the-client-address):
  // addresses or CIDR blocks, comma-separated. Unset: the socket's peer is the client, whatever the header says.
  TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const entries = (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      const bad = entries.find((e) => parseProxyEntry(e) === null);
      if (bad !== undefined) {
        ctx.addIssue({ code: 'custom', message: `"${bad}" is not an address or a CIDR block (10.0.0.0/8, fd00::/8)` });
        return z.NEVER;
      }
      if (entries.length > 100) {
        ctx.addIssue({ code: 'custom', message: 'at most 100 entries' });
        return z.NEVER;
      }
      return entries;
    }),
  // How soon a fetch activity whose worker died is handed to another worker.
  FETCH_HEARTBEAT_TIMEOUT_MS: positiveInt.min(2000).default(10_000),
  DEMO_SOURCE: z
    .enum(['on', 'off'])
    .default('on')
    .transform((v) => v === 'on'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  // Operators (docs/operations.md).
  // GET /metrics without the admin token (for a Prometheus inside a private network).
  METRICS_PUBLIC: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  // The worker's own /metrics port (`npm run worker`: DEFAULT_WORKER_METRICS_PORT when unset; in
  // `npm start` the API's /metrics already holds the worker's series, so only when set).
  // 0: any free port (several workers on one host, the tests), named in the worker's start line.
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  // How long a rotated API key keeps working (and a rotated webhook secret keeps signing beside the new one).
  KEY_ROTATION_GRACE_SECONDS: z.coerce.number().int().min(0).max(30 * 24 * 3600).default(3600),
  // After SIGTERM: /readyz answers 503 for this long before the API stops accepting connections,
  // so a load balancer takes the process out of rotation first.
  SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(120_000).default(2000),
  // After SIGTERM: how long the worker lets running activities finish before it hands them back
  // (cancelled as WORKER_SHUTDOWN, retried at once by another worker from their last heartbeat).
  WORKER_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
});

export const DEFAULT_WORKER_METRICS_PORT = 9464;

/**
 * An http(s) origin as browsers send it in `Origin` (lower case, no default port), or null when the
 * text is not one: it must be exactly scheme://host[:port], without path, query or credentials.
 */
export function normalizeOrigin(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/') return null;
  if (!/^https?:\/\/[^/?#]+\/?$/i.test(text)) return null;
  return url.origin;
}

export type Env = z.infer<typeof schema>;

export interface Config extends Env {
  /** Always set: the variable, or max(120000, 2 × SOURCE_TIMEOUT_MS). */
  SOURCE_REQUEST_DEADLINE_MS: number;
  publicBaseUrl: string;
  s3: { endpoint: string; accessKey: string; secretKey: string; bucket: string; region: string } | null;
  /** Where files[].url points with S3 storage; null: the API's signed link (local storage, or DIRECT_DOWNLOADS=off). */
  directDownloads: { publicEndpoint: string; cdnBase: string | null } | null;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment once; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid environment: ${lines.join('; ')}`);
  }
  const e = parsed.data;
  let s3: Config['s3'] = null;
  if (e.S3_ENDPOINT) {
    if (!e.S3_ACCESS_KEY || !e.S3_SECRET_KEY) {
      throw new ConfigError('invalid environment: S3_ACCESS_KEY and S3_SECRET_KEY are required with S3_ENDPOINT');
    }
    s3 = {
      endpoint: e.S3_ENDPOINT,
      accessKey: e.S3_ACCESS_KEY,
      secretKey: e.S3_SECRET_KEY,
      bucket: e.S3_BUCKET,
      region: e.S3_REGION,
    };
  }
  // A deadline shorter than the idle limit would make that limit meaningless: refused, not guessed at.
  const deadline = e.SOURCE_REQUEST_DEADLINE_MS ?? Math.max(120_000, 2 * e.SOURCE_TIMEOUT_MS);
  if (deadline < e.SOURCE_TIMEOUT_MS) {
    throw new ConfigError(`invalid environment: SOURCE_REQUEST_DEADLINE_MS (${deadline}) must be at least SOURCE_TIMEOUT_MS (${e.SOURCE_TIMEOUT_MS})`);
  }
  for (const name of ['S3_ENDPOINT', 'S3_PUBLIC_ENDPOINT'] as const) {
    // Objects are addressed path-style from the endpoint's origin; a path there would be dropped silently.
    const url = e[name] ? new URL(e[name]) : null;
    if (url && (url.pathname !== '/' || url.search)) throw new ConfigError(`invalid environment: ${name}: must be scheme://host[:port], without a path`);
  }
  if (!s3 && (e.S3_PUBLIC_ENDPOINT || e.PUBLIC_DOWNLOAD_BASE)) {
    throw new ConfigError('invalid environment: S3_PUBLIC_ENDPOINT and PUBLIC_DOWNLOAD_BASE need S3 storage (S3_ENDPOINT)');
  }
  const directDownloads =
    s3 && e.DIRECT_DOWNLOADS ? { publicEndpoint: e.S3_PUBLIC_ENDPOINT ?? s3.endpoint, cdnBase: e.PUBLIC_DOWNLOAD_BASE?.replace(/\/+$/, '') ?? null } : null;
  return { ...e, SOURCE_REQUEST_DEADLINE_MS: deadline, publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`, s3, directDownloads };
}
