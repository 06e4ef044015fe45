// The start claim (docs/adr/0022-admission-one-owner.md): whoever admits a task holds the start of
// its run for START_CLAIM_MS and renews it while the start is still in hand, so a run is started by
// its admitter and, only when that claim lapses (its process died), by admission's sweep; never by
// two processes at once. The claim's rules are database functions
// (db/functions/dc_claim_lapsed_starts.sql, db/functions/dc_renew_start_claims.sql).
import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';

export const START_CLAIM_MS = 10_000;

/** The claim length as a statement parameter of the functions that take or renew a claim. */
export const claimMs = () => sql`${START_CLAIM_MS}::float8`;

/** Keeps the claims of starts still in hand (queued in a starter, or being made). */
export async function renewClaims(db: Db, taskIds: string[]): Promise<void> {
  if (taskIds.length === 0) return;
  await db.execute(sql`select dc_renew_start_claims(${`{${taskIds.map((id) => JSON.stringify(id)).join(',')}}`}::text[], ${claimMs()})`);
}
