// Callbacks are signed per Standard Webhooks with the project's webhook_secret (the `webhooks`
// entry of the OpenAPI document). Verify the raw body as it arrived: re-serialised JSON would not match.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './schema.js';

export type CallbackEvent = components['schemas']['CallbackEvent'];
/** What the project's alert_callback receives when a schedule pauses itself after failing. */
export type SchedulePausedEvent = components['schemas']['SchedulePausedEvent'];

export type CallbackHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * The callback's event once its signature, id and timestamp (within five minutes) check out with
 * `secret` (the webhook_secret, `whsec_…`); throws CallbackVerificationError otherwise. During a
 * secret rotation either secret verifies (the header carries a signature for each).
 */
export function verifyCallback(secret: string, body: string | Uint8Array, headers: CallbackHeaders): CallbackEvent {
  return verified<CallbackEvent>(secret, body, headers);
}

/** A `schedule.paused` event at the project's alert_callback, verified as verifyCallback verifies a task's callback. */
export function verifySchedulePaused(secret: string, body: string | Uint8Array, headers: CallbackHeaders): SchedulePausedEvent {
  return verified<SchedulePausedEvent>(secret, body, headers);
}

function verified<T>(secret: string, body: string | Uint8Array, headers: CallbackHeaders): T {
  const plain: Record<string, string> = {};
  if (headers instanceof Headers) headers.forEach((v, k) => (plain[k] = v));
  else for (const [k, v] of Object.entries(headers)) if (v !== undefined) plain[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  try {
    return new Webhook(secret).verify(text, plain) as T;
  } catch (err) {
    throw new CallbackVerificationError(err instanceof WebhookVerificationError ? err.message : 'the callback could not be verified');
  }
}

export class CallbackVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackVerificationError';
  }
}
