// One real Temporal dev server (the CLI, in memory) and one workflow bundle for the whole run.
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { type DevServer, startDevServer } from '../../platform/temporal-server.js';
import { workflowsPath } from '../../app/worker-setup.js';
import { freePort } from './ports.js';
import { type S3Server, startS3Server } from './s3-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundleCode: string;
    s3: { endpoint: string; accessKey: string; secretKey: string };
  }
}

let server: DevServer | undefined;
let s3: S3Server | undefined;

export async function setup(project: TestProject): Promise<void> {
  [server, s3] = await Promise.all([startDevServer({ port: await freePort() }), startS3Server()]);
  const bundle = await bundleWorkflowCode({ workflowsPath, logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error } });
  project.provide('temporalAddress', server.address);
  project.provide('workflowBundleCode', bundle.code);
  // One SeaweedFS for the run; each test file that uses it gets its own bucket.
  project.provide('s3', { endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey });
}

export async function teardown(): Promise<void> {
  await Promise.all([server?.stop(), s3?.stop()]);
}
