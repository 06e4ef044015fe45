// The workflow bundle is built by webpack. Done inside the worker, webpack's ~100 MB stays in its
// heap for good; so it is built once in a short-lived child process and cached by content hash.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { WorkflowBundlePath } from '@temporalio/worker';
import { projectRoot } from '../platform/temporal-server.js';

/** Everything the bundle can depend on: workflow code, the pure lib code it imports, the SDK version. */
function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const dir of ['workflows', 'model']) {
    const files = readdirSync(join(projectRoot, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).sort();
    for (const f of files) hash.update(f).update(readFileSync(join(projectRoot, dir, f)));
  }
  hash.update(readFileSync(join(projectRoot, 'package-lock.json')));
  return hash.digest('hex').slice(0, 16);
}

export async function cachedWorkflowBundle(cacheDir: string): Promise<WorkflowBundlePath> {
  const codePath = join(cacheDir, `workflow-bundle-${sourcesHash()}.js`);
  if (!existsSync(codePath)) {
    await promisify(execFile)(process.execPath, ['--import', 'tsx', join(projectRoot, 'app', 'build-bundle.ts'), codePath], {
      cwd: projectRoot,
      maxBuffer: 16 * 1024 * 1024,
    });
  }
  return { codePath };
}
