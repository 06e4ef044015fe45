// `node --import tsx app/build-bundle.ts <out.js>`: writes the workflow bundle (see app/bundle.ts).
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { bundleText } from './bundle-text.js';
import { workflowsPath } from './worker-setup.js';

const out = process.argv[2];
if (!out) throw new Error('usage: build-bundle.ts <out.js>');
const quiet = () => {};
const { code } = await bundleWorkflowCode({ workflowsPath, logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: console.warn, error: console.error } });
mkdirSync(dirname(out), { recursive: true });
// Beside the target, then rename: a worker starting meanwhile never reads half a bundle.
writeFileSync(`${out}.${process.pid}.part`, bundleText(code));
renameSync(`${out}.${process.pid}.part`, out);
