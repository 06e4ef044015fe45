import type { Client } from '@temporalio/client';
import type { Db } from '../db/client.js';
import type { Config } from '../platform/config.js';
import type { Storage } from '../platform/storage/index.js';

export interface ActivityDeps {
  db: Db;
  storage: Storage;
  config: Config;
  /** Signs the file links in callback payloads (activities/notify.ts), as the API does. */
  linkSecret: string;
  /** Starts the next waiting task when a run frees its slot (domain/tasks/admission.ts). */
  temporal: Client;
}
