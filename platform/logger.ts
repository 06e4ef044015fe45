// The one logger: pino, one JSON object per line on stdout (pretty only when stdout is a
// terminal), at LOG_LEVEL. Secrets never reach a line: known secret fields are redacted by path,
// and every finished line is scrubbed of the shapes our secrets have (API keys, webhook secrets,
// link signatures, access tokens) and of the admin token and link secret themselves, so a secret
// that slips into a message or an error text is caught too.
import pino, { type DestinationStream, type Logger } from 'pino';
import { createRequire } from 'node:module';

export type { Logger } from 'pino';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Fields whose values are secrets wherever they appear (one or two levels deep). */
export const REDACT_PATHS = ['authorization', 'api_key', 'apiKey', 'webhook_secret', 'webhookSecret', 'admin_token', 'adminToken', 'link_secret', 'linkSecret', 'secret', 'token', 'access_token', 'sig', 'password', 'taskToken', 'secret_access_key', 'private_key', 'privateKey', 'passphrase']
  .flatMap((k) => [k, `*.${k}`, `*.*.${k}`])
  .concat(['headers.authorization', 'req.headers.authorization', 'req.headers.cookie']);

const SECRET_SHAPES: Array<[RegExp, string]> = [
  // Project API keys (platform/crypto.ts randomToken, base64url) and Standard Webhooks secrets.
  [/dck_[A-Za-z0-9_-]{8,}/g, 'dck_[Redacted]'],
  [/whsec_[A-Za-z0-9+/=]{8,}/g, 'whsec_[Redacted]'],
  // Signed links and WebSocket upgrades carry secrets in their query strings.
  [/([?&](?:sig|access_token)=)[^&\s"\\]+/g, '$1[Redacted]'],
  [/(Bearer\s+)[^\s"\\]+/gi, '$1[Redacted]'],
  // An SFTP destination's private key, in any PEM or OpenSSH armour (JSON-escaped newlines included).
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g, '[Redacted private key]'],
];

let extraSecrets: string[] = [];

/** Exact values to scrub from every line (the admin token, the link secret), set once they are known. */
export function registerSecrets(values: Array<string | undefined>): void {
  extraSecrets = [...new Set([...extraSecrets, ...values.filter((v): v is string => !!v && v.length >= 8)])];
}

export function scrub(line: string): string {
  let out = line;
  for (const [re, to] of SECRET_SHAPES) out = out.replace(re, to);
  for (const s of extraSecrets) out = out.split(s).join('[Redacted]');
  return out;
}

/**
 * Where lines go; swappable so a test can capture them and the pretty printer can be chosen
 * after the configuration is read (the root logger exists before that).
 */
class Sink implements DestinationStream {
  target: DestinationStream = pino.destination({ dest: 1, sync: true });
  write(line: string): void {
    this.target.write(line);
  }
}
const sink = new Sink();

/** The root logger; modules take children of it (`log.child({ component })`). */
export const log: Logger = pino(
  {
    level: 'info',
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
    hooks: { streamWrite: scrub },
  },
  sink,
);

/** LOG_LEVEL, and pretty lines when stdout is a terminal (never when it is a pipe or a file). */
export function configureLogging(level: LogLevel, opts: { pretty?: boolean } = {}): void {
  log.level = level;
  const tty = opts.pretty ?? Boolean(process.stdout.isTTY);
  // Loaded only for a terminal: a service writing JSON to a pipe never needs it.
  const pretty = () => createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  if (tty) sink.target = pretty()({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}

/** Sends every line to `write` instead of stdout (tests); returns the function that restores stdout. */
export function captureLogs(write: (line: string) => void): () => void {
  const before = sink.target;
  sink.target = { write } as DestinationStream;
  return () => {
    sink.target = before;
  };
}

/** A logger for one part of the service. */
export const logger = (component: string, bindings: Record<string, unknown> = {}): Logger => log.child({ component, ...bindings });
