// A worker process's CPU priority below the API's (docs/adr/0057-api-first-under-export-load.md): exports
// are batch work, a caller waiting on the API is not. Where both share cores (npm start's two
// processes, or an API and a worker on one machine), the kernel then gives the API the CPU as soon as
// it has work, and the exports take what is left.
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Raises this process's niceness to `nice` (never lowers it: that needs privileges). On Linux a
 * niceness belongs to a thread, and threads started before this call (V8's platform threads) keep
 * theirs, so each of the process's threads is set; threads started later inherit it from their parent.
 * Returns the niceness of the main thread afterwards, or undefined when it could not be read.
 */
export function lowerCpuPriority(nice: number): number | undefined {
  const threads = linuxThreads() ?? [0];
  for (const tid of threads) {
    try {
      if (getPriority(tid) < nice) setPriority(tid, nice);
    } catch {
      // A thread that ended meanwhile, or a platform without per-thread priorities: nothing to do.
    }
  }
  try {
    return getPriority(0);
  } catch {
    return undefined;
  }
}

function linuxThreads(): number[] | undefined {
  try {
    return readdirSync('/proc/self/task').map(Number).filter(Number.isInteger);
  } catch {
    return undefined;
  }
}
