// A diagnostic preload: `node --import ./bench/mem-probe.mjs ...` appends the process's
// memoryUsage() (MB) every 250 ms to $TMPDIR/mem-probe-<pid>.ndjson, to tell whether a peak of
// resident memory is the JS heap, external buffers or native (zlib, malloc) memory. Worker threads
// inherit the preload: each line names its thread (the heap figures are that thread's own).
import { appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setInterval } from 'node:timers';
import { threadId } from 'node:worker_threads';

const out = join(tmpdir(), `mem-probe-${process.pid}.ndjson`);
const mb = (n) => Math.round(n / 1048576);
setInterval(() => {
  const m = process.memoryUsage();
  appendFileSync(out, `${JSON.stringify({ t: Date.now(), thread: threadId, rss: mb(m.rss), heapTotal: mb(m.heapTotal), heapUsed: mb(m.heapUsed), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers) })}\n`);
}, 250).unref();
