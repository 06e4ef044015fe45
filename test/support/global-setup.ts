// One real Temporal dev server (the CLI, in memory) and one workflow bundle for the whole run.
import { createServer } from 'node:net';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { type DevServer, startDevServer } from '../../lib/temporal-server.js';
import { workflowsPath } from '../../worker/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundleCode: string;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

let server: DevServer | undefined;

export async function setup(project: TestProject): Promise<void> {
  server = await startDevServer({ port: await freePort() });
  const bundle = await bundleWorkflowCode({ workflowsPath, logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error } });
  project.provide('temporalAddress', server.address);
  project.provide('workflowBundleCode', bundle.code);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
