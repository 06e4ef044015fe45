import type { Context } from '@temporalio/activity';
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
  /** Open destinations' sealed secrets (platform/sealed.ts). */
  destinationKeys: readonly string[];
  /** Starts the next waiting task when a run frees its slot (domain/tasks/admission/). */
  temporal: Client;
}

/**
 * Heartbeats an activity; a local one (the sync export's, workflows/sync-export.ts) has no
 * heartbeat on the server (Core would log each as failed), so for it this does nothing.
 */
export function heartbeat(ctx: Context, details?: unknown): void {
  if (!ctx.info.isLocal) ctx.heartbeat(details);
}
