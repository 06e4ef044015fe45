// A worker process's niceness (platform/priority.ts): every thread of the process takes it, those
// started before the call (V8's) and those started after (a worker thread, libuv's pool), and it is
// never lowered. Checked in a child process of its own, read back from /proc.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../platform/paths.js';

const script = `
import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { lowerCpuPriority } from './platform/priority.ts';
const threads = () => readdirSync('/proc/self/task').map((t) => Number(readFileSync('/proc/self/task/' + t + '/stat', 'utf8').split(') ')[1].split(' ')[16]));
const before = threads().length;
const start = threads()[0];
const main = lowerCpuPriority(Number(process.argv.at(-1)));
const again = lowerCpuPriority(1);
await new Promise((resolve) => new Worker('setTimeout(() => {}, 300)', { eval: true }).once('online', resolve));
console.log(JSON.stringify({ start, main, again, before, nice: threads() }));
`;

const run = (nice: number) => JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, String(nice)], { cwd: projectRoot, encoding: 'utf8' })) as { start: number; main: number; again: number; before: number; nice: number[] };

describe.runIf(existsSync('/proc/self/task'))('lowerCpuPriority', () => {
  it('sets every thread of the process, before and after the call, and never lowers it', () => {
    const got = run(7);
    // A process that already runs above 7 (a niced test run) keeps its niceness.
    const want = Math.max(got.start, 7);
    expect(got.main).toBe(want);
    // Asked for 1 after 7: niceness stays (lowering it would need privileges, and is not the intent).
    expect(got.again).toBe(want);
    expect(got.before).toBeGreaterThan(1);
    expect(got.nice.length).toBeGreaterThan(got.before);
    expect(new Set(got.nice)).toEqual(new Set([want]));
  });
});
