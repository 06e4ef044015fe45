// A TCP proxy in front of a server, whose connections a test can cut at once: a dropped network
// link as a client sees it (no close frame, no goodbye), without touching the server.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Transform } from 'node:stream';

export interface TcpProxy {
  url: string;
  /**
   * Destroys every connection through the proxy; new ones are still accepted. `reset`: the client
   * gets a TCP reset (ECONNRESET, a socket error) rather than a plain close.
   */
  cut(how?: 'reset'): number;
  /** Cuts every connection and resets new ones until up(): the server unreachable, as a client sees it. */
  down(): void;
  up(): void;
  /** Bytes the clients have sent through the proxy so far. */
  bytesUp(): number;
  close(): Promise<void>;
}

/** Holds each chunk long enough that the stream passes at most `bytesPerSecond`: a slow uplink. */
function throttle(bytesPerSecond: number): Transform {
  let freeAt = Date.now();
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      freeAt = Math.max(freeAt, Date.now()) + (chunk.length / bytesPerSecond) * 1000;
      setTimeout(() => done(null, chunk), Math.max(0, freeAt - Date.now()));
    },
  });
}

/** `upBytesPerSecond`: what the client sends reaches the server at most this fast. */
export async function startTcpProxy(target: string, opts: { upBytesPerSecond?: number } = {}): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const pairs = new Set<[Socket, Socket]>();
  let up = 0;
  let refusing = false;
  const server: Server = createServer((inbound) => {
    if (refusing) return void inbound.resetAndDestroy();
    inbound.on('data', (b: Buffer) => (up += b.length));
    const outbound = connect(Number(port), hostname);
    const pair: [Socket, Socket] = [inbound, outbound];
    pairs.add(pair);
    if (opts.upBytesPerSecond) inbound.pipe(throttle(opts.upBytesPerSecond)).pipe(outbound).pipe(inbound);
    else inbound.pipe(outbound).pipe(inbound);
    const drop = () => {
      pairs.delete(pair);
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on('error', drop).on('close', drop);
    outbound.on('error', drop).on('close', drop);
  });
  const cutAll = (how?: 'reset') => {
    const n = pairs.size;
    for (const [a, b] of [...pairs]) {
      if (how === 'reset') a.resetAndDestroy();
      else a.destroy();
      b.destroy();
    }
    return n;
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    bytesUp: () => up,
    down() {
      refusing = true;
      cutAll();
    },
    up: () => void (refusing = false),
    cut: cutAll,
    close: () =>
      new Promise((resolve) => {
        for (const [a, b] of pairs) {
          a.destroy();
          b.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
