// Standard Webhooks (https://www.standardwebhooks.com): secrets and signatures through the
// maintained `standardwebhooks` package, so receivers verify with the same library.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

const PREFIX = 'whsec_';

/** `whsec_` + standard base64 of 32 random bytes: the format `new Webhook(secret)` decodes. */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The key is decoded with Buffer (which reads both base64 alphabets) and handed over raw, so a
 * secret issued before the switch to standard base64 still signs; receivers should use a new one.
 */
function webhookFor(secret: string): Webhook {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return new Webhook(key, { format: 'raw' });
}

/**
 * The three Standard Webhooks headers for one attempt: same id on every retry, fresh timestamp.
 * With several secrets (a rotation's grace period) the signature header holds one signature per
 * secret, space-separated, as the specification allows; a receiver with either secret verifies.
 */
export function webhookHeaders(secrets: string | readonly string[], id: string, body: string, at = new Date()): Record<string, string> {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': list.map((s) => webhookFor(s).sign(id, at, body)).join(' '),
  };
}
