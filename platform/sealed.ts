// Secrets we must read back later (a destination's secret key) are kept sealed: AES-256-GCM under a
// server key, with the key's id in the sealed text so a list of keys can rotate (the first seals,
// any opens; docs/destinations.md#the-server-key-and-its-rotation).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';

// A key is any long string: hashed to the 32 bytes AES-256 wants, so base64, hex or a passphrase all work.
const keyBytes = (key: string): Buffer => createHash('sha256').update(`dc-seal:${key}`).digest();
/** Names a key without revealing it: what a sealed value says it was sealed with. */
export const keyId = (key: string): string => createHash('sha256').update(`dc-seal-id:${key}`).digest('hex').slice(0, 12);

export class SealError extends Error {
  override name = 'SealError';

  constructor(
    message: string,
    /** The id of the key the value names, when no key given has that id (a rotation not on every process yet, or a key dropped). */
    readonly missingKey?: string,
  ) {
    super(message);
  }
}

/** `v1.<key id>.<iv>.<tag>.<ciphertext>`, base64url; `context` (say the row's id) is bound in as associated data. */
export function seal(plain: string, keys: readonly string[], context: string): string {
  const key = keys[0];
  if (!key) throw new SealError('no sealing key configured');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyBytes(key), iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [VERSION, keyId(key), iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

export function open(sealed: string, keys: readonly string[], context: string): string {
  const [version, id, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || !id || !iv || !tag || body === undefined) throw new SealError('not a sealed value');
  const key = keys.find((k) => keyId(k) === id);
  if (!key) throw new SealError(`sealed with key ${id}, which is not among DESTINATION_KEYS`, id);
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyBytes(key), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SealError(`the sealed value does not open with key ${id} (tampered with, or another context)`);
  }
}

/** Whether a value is sealed with the first (current) key; a rotation re-seals the others. */
export const sealedWithCurrent = (sealed: string, keys: readonly string[]): boolean => keys[0] !== undefined && sealed.split('.')[1] === keyId(keys[0]);
