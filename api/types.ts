import type { Client } from '@temporalio/client';
import type { Database } from '../db/client.js';
import type { ProjectRow } from '../db/schema.js';
import type { Config } from '../lib/config.js';
import type { Secrets } from '../lib/secrets.js';
import type { Storage } from '../lib/storage/index.js';

export interface ApiDeps {
  database: Database;
  storage: Storage;
  config: Config;
  secrets: Secrets;
  temporal: Client;
}

export type Principal = { kind: 'admin' } | { kind: 'project'; project: ProjectRow };

export type AppEnv = { Variables: { requestId: string; principal: Principal } };
