// The workflow bundle is built by webpack. Done inside the worker, webpack's ~100 MB stays in its
// heap for good; so it is built once in a short-lived child process and cached by content hash.
// The compiled service (`npm run build`, dist/) ships the bundle prebuilt beside its code, so a
// production worker never runs webpack (nor needs tsx) at start.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { WorkflowBundlePath } from '@temporalio/worker';
import { projectRoot } from '../platform/paths.js';

/** Running from dist/ (compiled JavaScript) rather than from the TypeScript sources through tsx. */
const compiled = import.meta.url.endsWith('.js');
/** Where scripts/build.mjs writes the bundle: dist/workflow-bundle.js. */
export const prebuiltBundlePath = fileURLToPath(new URL('../workflow-bundle.js', import.meta.url));

/** Everything the bundle can depend on: workflow code, the pure lib code it imports, the SDK version, how it is written. */
function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const dir of ['workflows', 'model']) {
    const files = readdirSync(join(projectRoot, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).sort();
    for (const f of files) hash.update(f).update(readFileSync(join(projectRoot, dir, f)));
  }
  hash.update(readFileSync(join(projectRoot, 'package-lock.json')));
  // How the bundle's text is written (app/bundle-text.ts).
  hash.update(readFileSync(join(projectRoot, 'app', 'bundle-text.ts')));
  return hash.digest('hex').slice(0, 16);
}

export async function cachedWorkflowBundle(cacheDir: string): Promise<WorkflowBundlePath> {
  if (compiled) {
    // The build writes the bundle from the same compiled workflows, so it cannot be stale.
    if (!existsSync(prebuiltBundlePath)) throw new Error(`the workflow bundle ${prebuiltBundlePath} is missing: run \`npm run build\``);
    return { codePath: prebuiltBundlePath };
  }
  const codePath = join(cacheDir, `workflow-bundle-${sourcesHash()}.js`);
  if (!existsSync(codePath)) {
    await promisify(execFile)(process.execPath, ['--import', 'tsx', join(projectRoot, 'app', 'build-bundle.ts'), codePath], {
      cwd: projectRoot,
      maxBuffer: 16 * 1024 * 1024,
    });
  }
  return { codePath };
}
