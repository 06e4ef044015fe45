// A WebSocket client (the `ws` package) that keeps every message it gets, for the socket tests.
import WebSocket from 'ws';

export interface Client {
  ws: WebSocket;
  messages: any[];
  send(message: unknown): void;
  /** The first message (from index `from`) matching `pred`. */
  next(pred: (m: any) => boolean, timeoutMs?: number, from?: number): Promise<any>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export async function connect(base: string, opts: { token?: string; header?: boolean } = {}): Promise<Client> {
  const url = new URL('/v1/ws', base.replace(/^http/, 'ws'));
  const headers: Record<string, string> = {};
  if (opts.token && opts.header) headers.authorization = `Bearer ${opts.token}`;
  else if (opts.token) url.searchParams.set('access_token', opts.token);
  const ws = new WebSocket(url, { headers });
  const messages: any[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { statusCode: res.statusCode })));
    ws.once('error', reject);
  });
  return {
    ws,
    messages,
    closed,
    send: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)),
    async next(pred, timeoutMs = 30_000, from = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.slice(from).find(pred);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching message in ${timeoutMs} ms; got ${JSON.stringify(messages).slice(0, 2000)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => ws.close(),
  };
}
