// Helpers for the crash tests: wait for a source to have served so many pages, read the file of a
// finished task, and tell which worker holds an export's in-flight fetch activities.
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { SourceServer } from './source-server.js';

export async function waitForPages(src: SourceServer, pages: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (src.pageCounts().size < pages) {
    if (Date.now() > deadline) throw new Error(`the source served ${src.pageCounts().size} of the ${pages} pages awaited`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function sha256Of(url: string): Promise<string> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`download answered ${res.status}`);
  return createHash('sha256').update(Buffer.from(await res.arrayBuffer())).digest('hex');
}

/** Worker identities (`pid@host`) of the started fetchPages activities of a workflow. */
export async function fetchHolders(temporal: Client, taskId: string): Promise<string[]> {
  const d = await temporal.workflow.getHandle(taskId).describe();
  return (d.raw.pendingActivities ?? [])
    .filter((a) => a.activityType?.name === 'fetchPages' && a.lastWorkerIdentity)
    .map((a) => a.lastWorkerIdentity!);
}

/**
 * Pages the source served more than once, and whether each such page had first been served
 * shortly before the kill (so only work the last heartbeat did not cover was redone).
 */
export function refetched(src: SourceServer, killedAt: number): { pages: number[]; maxCount: number; earliestFirstFetch: number } {
  const first = new Map<number, number>();
  for (const r of src.requests) if (r.pageSize !== 1 && !first.has(r.page)) first.set(r.page, r.at);
  const counts = src.pageCounts();
  const pages = [...counts].filter(([, n]) => n > 1).map(([p]) => p);
  const earliest = Math.min(...pages.map((p) => first.get(p)!));
  return { pages, maxCount: Math.max(...counts.values()), earliestFirstFetch: pages.length ? killedAt - earliest : 0 };
}
