import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomToken } from '../../platform/crypto.js';

/**
 * A fresh path for a file being built. It lives under DATA_DIR so that, with the local store,
 * publishing a finished file is a rename on the same filesystem rather than a copy.
 */
export function tempPath(dataDir: string, taskId: string, name: string): string {
  const dir = join(dataDir, 'tmp');
  mkdirSync(dir, { recursive: true });
  return join(dir, `${taskId}-${randomToken(6)}-${name}`);
}
