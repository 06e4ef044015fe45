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
  let pgAdminUrl: string;
  [server, s3, { url: pgAdminUrl, own: pg }] = await Promise.all([startDevServer({ port: await freePort() }), startS3Server(), suitePostgres()]);
  const bundle = await bundleWorkflowCode({ workflowsPath, logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error } });
  project.provide('temporalAddress', server.address);
  project.provide('workflowBundleCode', bundle.code);
  // One SeaweedFS for the run; each test file that uses it gets its own bucket.
  project.provide('s3', { endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey });
  project.provide('pgAdminUrl', pgAdminUrl);
}

export async function teardown(): Promise<void> {
  await Promise.all([server?.stop(), s3?.stop(), pg?.close()]);
}
