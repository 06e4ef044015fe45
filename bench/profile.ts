// Summary of a V8 CPU profile (node --cpu-prof), for `npm run bench` with
// BENCH_WORKER_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=.bench":
//   node --import tsx bench/profile.ts .bench/<file>.cpuprofile [top]
// Prints self time by function and by package/file, and inclusive time of our own functions.
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [path, topArg, fromArg, toArg] = process.argv.slice(2) as [string, string | undefined, string | undefined, string | undefined];
const top = Number(topArg ?? 30);
// Optional window in seconds from the profile's start (e.g. only the export, not the worker's start).
const [from, to] = [Number(fromArg ?? 0) * 1e6, Number(toArg ?? Infinity) * 1e6];
const p = JSON.parse(readFileSync(path, 'utf8')) as Profile;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Self time per node: each sample's delta goes to the sampled node.
const self = new Map<number, number>();
const busy = new Map<number, number>();
let at = 0;
p.samples.forEach((id, i) => {
  at += p.timeDeltas[i] ?? 0;
  if (at < from || at > to) return;
  self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  if (byId.get(id)!.callFrame.functionName !== '(idle)') busy.set(Math.floor(at / 1e6), (busy.get(Math.floor(at / 1e6)) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
});
const total = [...self.values()].reduce((a, b) => a + b, 0);

const where = (url: string) => {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith('node:')) return url;
  const own = /\/(?:dist\/)?((?:app|api|activities|domain|platform|workflows|db|model)\/.+)$/.exec(url);
  return own ? own[1]! : url || '(native/vm)';
};
const label = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
const fnSelf = new Map<string, number>();
const pkgSelf = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, ms] of self) {
  const n = byId.get(id)!;
  add(fnSelf, label(n), ms);
  add(pkgSelf, n.callFrame.url ? where(n.callFrame.url) : n.callFrame.functionName, ms);
  // Inclusive time of our own code: every distinct own frame on the stack gets the sample.
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const f = byId.get(cur)!;
    const w = where(f.callFrame.url);
    if (/^(app|api|activities|domain|platform|db)\//.test(w)) {
      const k = `${f.callFrame.functionName || '(anonymous)'} ${w}:${f.callFrame.lineNumber + 1}`;
      if (!seen.has(k)) {
        seen.add(k);
        add(inclusive, k, ms);
      }
    }
  }
}

const print = (title: string, m: Map<string, number>) => {
  console.log(`\n## ${title}`);
  for (const [k, ms] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${(ms / 1000).toFixed(2).padStart(7)} s ${((ms / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
};
console.log(`profile ${((p.endTime - p.startTime) / 1e6).toFixed(1)} s wall, ${(total / 1000).toFixed(2)} s sampled (idle included)`);
console.log(`busy ms per second: ${[...busy].sort((a, b) => a[0] - b[0]).map(([s, ms]) => `${s}:${Math.round(ms)}`).join(' ')}`);
print('self time by package / file', pkgSelf);
print('self time by function', fnSelf);
print('inclusive time of our functions', inclusive);
