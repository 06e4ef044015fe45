import { join } from 'node:path';
import type { Config } from '../config.js';
import { LocalStorage } from './local.js';
import { S3Storage } from './s3.js';
import type { Storage } from './types.js';

export type { Storage } from './types.js';

/** S3 when S3_ENDPOINT is set (several workers share one bucket), else DATA_DIR/store on this machine. */
export function createStorage(config: Config): Storage {
  if (config.s3) return new S3Storage(config.s3);
  return new LocalStorage(join(config.DATA_DIR, 'store'));
}
