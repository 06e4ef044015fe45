// `node --import tsx bench/ws-clients.ts <ws-base> <api_key> <count>`: opens `count` WebSockets
// subscribed to `*` (a few hundred at a time, as browsers reconnecting would), prints "ready N/M",
// then records when each gets the final task.succeeded of the task named on stdin, and prints one
// JSON line of results once every client has it or 30 s have passed.
import { createInterface } from 'node:readline';
import WebSocket from 'ws';

const [base, key, countArg] = process.argv.slice(2);
const count = Number(countArg);
const finals = new Map<string, Map<number, number>>();
const closes = new Map<number, number>();
let subscribed = 0;
let failedOpen = 0;

function open(i: number): Promise<void> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${base}/v1/ws?access_token=${key}`);
    ws.on('message', (data) => {
      const text = data.toString();
      if (text.startsWith('{"subscribed"')) {
        subscribed++;
        return resolve();
      }
      if (!text.startsWith('{"event":"task.succeeded"')) return;
      const id = /"task_id":"([^"]+)"/.exec(text)?.[1] ?? '';
      if (!finals.has(id)) finals.set(id, new Map());
      finals.get(id)!.set(i, Date.now());
    });
    ws.on('open', () => ws.send('{"subscribe":"*"}'));
    ws.on('close', (code) => closes.set(code, (closes.get(code) ?? 0) + 1));
    ws.on('error', () => {
      failedOpen++;
      resolve();
    });
  });
}

// BENCH_WS_BATCH: how many connect at once (all of them: a fleet reconnecting after a restart).
const batch = Number(process.env.BENCH_WS_BATCH ?? 250);
for (let i = 0; i < count; i += batch) await Promise.all(Array.from({ length: Math.min(batch, count - i) }, (_, j) => open(i + j)));
console.log(`ready ${subscribed}/${count} (failed ${failedOpen})`);

for await (const line of createInterface({ input: process.stdin })) {
  const taskId = line.trim();
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && (finals.get(taskId)?.size ?? 0) < subscribed) await new Promise((r) => setTimeout(r, 50));
  const times = [...(finals.get(taskId)?.values() ?? [])];
  console.log(JSON.stringify({ taskId, subscribed, failedOpen, received: times.length, times, closes: Object.fromEntries(closes) }));
}
