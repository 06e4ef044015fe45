import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const sha256Hex = (s: string): string => createHash('sha256').update(s).digest('hex');

export const randomToken = (bytes = 24): string => randomBytes(bytes).toString('base64url');

/** Prefixed, sortable-enough ids: the prefix says what an id is when it shows up in a log. */
export const newId = (prefix: string): string => `${prefix}_${Date.now().toString(36)}${randomBytes(8).toString('hex')}`;

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

export const hmacHex = (secret: string, data: string): string => createHmac('sha256', secret).update(data).digest('hex');
