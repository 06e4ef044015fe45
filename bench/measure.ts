// Process and machine measurements for bench/run.ts, read from /proc.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { projectRoot } from '../platform/paths.js';

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

export interface NodeChild {
  child: ChildProcess;
  out: () => string;
  ready: (text: string) => Promise<void>;
  exited: Promise<void>;
}

export function spawnNode(args: string[], env: Record<string, string | undefined>, nodeArgs: string[] = []): NodeChild {
  // Compiled JavaScript (dist/) runs under plain node; TypeScript through tsx.
  const loader = args[0]?.endsWith('.js') ? [] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...nodeArgs, ...loader, ...args], { cwd: projectRoot, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = async (text: string) => {
    while (!out.includes(text)) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { child, out: () => out, ready, exited };
}

/** Current and peak resident set of a process, in MB. */
export function rssMb(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** A process and its descendants, without `exclude` and its own (the embedded start's Temporal dev server). */
export function processTree(pid: number, exclude?: number): number[] {
  if (pid === exclude) return [];
  let children: number[];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return [pid, ...children.flatMap((c) => processTree(c, exclude))];
}

/**
 * Proportional set size in MB (smaps_rollup): a page shared by n processes counts 1/n in each, so
 * the file pages of the node binary and the Temporal core bridge, resident once for the `npm start`
 * group, are not counted once per process as in a VmRSS sum. 0 for a process gone meanwhile.
 */
export function pssMb(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** VmRSS summed over processes (each read once; a process gone meanwhile counts 0). */
export function treeRssMb(pids: number[]): number {
  return pids.reduce((mb, p) => {
    try {
      return mb + rssMb(p).rss;
    } catch {
      return mb;
    }
  }, 0);
}

/** CPU seconds (user + system) a process has used (clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds summed over processes (a process gone meanwhile counts 0). */
export function treeCpuSeconds(pids: number[]): number {
  return pids.reduce((sum, p) => {
    try {
      return sum + cpuSeconds(p);
    } catch {
      return sum;
    }
  }, 0);
}

/** CPU seconds all cores have been busy since boot: with our processes' seconds, what others used. */
export function machineBusySeconds(): number {
  const [, ...t] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal
  return (t[0]! + t[1]! + t[2]! + t[5]! + t[6]! + t[7]!) / 100;
}

export function dirBytes(dir: string): number {
  let n = 0;
  try {
    for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) n += statSync(join(e.parentPath, e.name)).size;
  } catch {
    // not there yet
  }
  return n;
}

type HistoryEvent = { eventTime?: { seconds?: unknown; nanos?: number | null } | null; activityTaskScheduledEventAttributes?: { activityType?: { name?: string | null } | null } | null; activityTaskCompletedEventAttributes?: { scheduledEventId?: unknown } | null; eventId?: unknown };

/** Seconds from the workflow's start to the first schedule and last completion of each activity type. */
export function phaseSpans(events: HistoryEvent[]): Record<string, string> {
  const ms = (e: HistoryEvent) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
  const t0 = ms(events[0]!);
  const typeOf = new Map<string, string>();
  const spans: Record<string, [number, number]> = {};
  for (const e of events) {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (name) {
      typeOf.set(String(e.eventId), name);
      spans[name] ??= [ms(e) - t0, 0];
    }
    const done = e.activityTaskCompletedEventAttributes?.scheduledEventId;
    if (done !== undefined && done !== null) spans[typeOf.get(String(done))!]![1] = ms(e) - t0;
  }
  return Object.fromEntries(Object.entries(spans).map(([k, [a, b]]) => [k, `${(a / 1000).toFixed(2)}–${(b / 1000).toFixed(2)}`]));
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : Math.round(((s[m - 1]! + s[m]!) / 2) * 1000) / 1000;
}

/**
 * Waits for a task's export workflow to close (long poll on the server). POST /v1/tasks answers
 * before the run starts (ADR 0020) and a queued task's run starts when admitted (ADR 0012), so the
 * workflow may not exist yet: asked again until it does.
 */
export async function workflowClosed(client: Client, taskId: string): Promise<void> {
  for (;;) {
    try {
      await client.workflow.getHandle(taskId).result();
      return;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) return; // failed or cancelled: the task row tells
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
