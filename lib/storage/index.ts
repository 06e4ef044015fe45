import { join } from 'node:path';
import type { Config } from '../config.js';
import { LocalStorage } from './local.js';
import type { Storage } from './types.js';

export type { Storage } from './types.js';

export function createStorage(config: Config): Storage {
  // S3 is wired in by the storage issue; until then every deployment uses DATA_DIR/store.
  return new LocalStorage(join(config.DATA_DIR, 'store'));
}
