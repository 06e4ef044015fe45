// What the whole run shares: the outside tools (scripts/test-tools.mjs, installed on first use), a
// Postgres (the one on 127.0.0.1:5432, or one of the run's own when none answers there), one real
// Temporal dev server (the CLI, in memory) and one workflow bundle.
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { type DevServer, startDevServer } from '../../platform/temporal-server.js';
import { workflowsPath } from '../../app/worker-setup.js';
import { ensureTestTools } from '../../scripts/test-tools.mjs';
import { type OwnPostgres } from './own-postgres.js';
import { suitePostgres } from './pg.js';
import { freePort } from './ports.js';
import { type S3Server, startS3Server } from './s3-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundleCode: string;
    s3: { endpoint: string; accessKey: string; secretKey: string };
    /** The run's Postgres, its `postgres` database: tests create their own databases through it. */
    pgAdminUrl: string;
  }
}

let server: DevServer | undefined;
let s3: S3Server | undefined;
let pg: OwnPostgres | undefined;

export async function setup(project: TestProject): Promise<void> {
  ensureTestTools();
  // Settled, not raced: when one fails, the others that started are stopped (an own Postgres is a
  // daemon that would outlive the run).
  const [dev, bucket, postgres] = await Promise.allSettled([startDevServer({ port: await freePort() }), startS3Server(), suitePostgres()]);
  server = dev.status === 'fulfilled' ? dev.value : undefined;
  s3 = bucket.status === 'fulfilled' ? bucket.value : undefined;
  pg = postgres.status === 'fulfilled' ? postgres.value.own : undefined;
  if (dev.status === 'rejected' || bucket.status === 'rejected' || postgres.status === 'rejected') {
    await teardown();
    throw [dev, bucket, postgres].find((r) => r.status === 'rejected')!.reason;
  }
  const pgAdminUrl = postgres.value.url;
  const bundle = await bundleWorkflowCode({ workflowsPath, logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error } });
  project.provide('temporalAddress', dev.value.address);
  project.provide('workflowBundleCode', bundle.code);
  // One SeaweedFS for the run; each test file that uses it gets its own bucket.
  project.provide('s3', { endpoint: bucket.value.endpoint, accessKey: bucket.value.accessKey, secretKey: bucket.value.secretKey });
  project.provide('pgAdminUrl', pgAdminUrl);
}

export async function teardown(): Promise<void> {
  await Promise.all([server?.stop(), s3?.stop(), pg?.close()]);
}
