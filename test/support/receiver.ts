// A real callback receiver (node:http) that verifies every Standard Webhooks signature with the
// project's secret, using the standardwebhooks package as a business system would.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import type { TaskJson } from '../../domain/tasks/view.js';

export interface Received {
  n: number;
  at: number;
  headers: Record<string, string>;
  body: string;
  /** The verified payload, or null when verification failed. */
  payload: { event: string; task: TaskJson } | null;
  verifyError?: string;
}

/** What to answer to the nth request: a status (+headers), or 'hang' to never answer. */
export type Answer = { status: number; headers?: Record<string, string> } | 'hang';

export interface Receiver {
  url: string;
  host: string;
  received: Received[];
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(secret: string, answer: (n: number) => Answer = () => ({ status: 200 })): Promise<Receiver> {
  const received: Received[] = [];
  const webhook = new Webhook(secret);
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const r: Received = { n: received.length + 1, at: Date.now(), headers, body, payload: null };
      try {
        r.payload = webhook.verify(body, headers) as Received['payload'];
      } catch (err) {
        r.verifyError = (err as Error).message;
      }
      received.push(r);
      const a = answer(r.n);
      if (a === 'hang') return;
      res.writeHead(a.status, a.headers);
      res.end('ok');
    });
  };
  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks/export`,
    host: `127.0.0.1:${port}`,
    received,
    async waitFor(count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return received;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
