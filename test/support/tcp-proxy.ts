// A TCP proxy in front of a server, whose connections a test can cut at once: a dropped network
// link as a client sees it (no close frame, no goodbye), without touching the server.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  url: string;
  /** Destroys every connection through the proxy; new ones are still accepted. */
  cut(): number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const pairs = new Set<[Socket, Socket]>();
  const server: Server = createServer((inbound) => {
    const outbound = connect(Number(port), hostname);
    const pair: [Socket, Socket] = [inbound, outbound];
    pairs.add(pair);
    inbound.pipe(outbound).pipe(inbound);
    const drop = () => {
      pairs.delete(pair);
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on('error', drop).on('close', drop);
    outbound.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut() {
      const n = pairs.size;
      for (const [a, b] of [...pairs]) {
        a.destroy();
        b.destroy();
      }
      return n;
    },
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
