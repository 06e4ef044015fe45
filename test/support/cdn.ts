// A stand-in for a CDN in front of the bucket: forwards GET/HEAD to the origin (the S3 endpoint)
// with the path below its own prefix and the query unchanged, and the origin's Host, as a CDN
// configured per docs/deploy.md does. It caches nothing.
import { createServer, request, type Server } from 'node:http';

export interface Cdn {
  base: string;
  /** Paths (with query) it forwarded. */
  forwarded: string[];
  close(): Promise<void>;
}

export async function startCdn(origin: string, prefix = '/dl'): Promise<Cdn> {
  const target = new URL(origin);
  const forwarded: string[] = [];
  const server: Server = createServer((req, res) => {
    if (!req.url?.startsWith(`${prefix}/`) || (req.method !== 'GET' && req.method !== 'HEAD')) return void res.writeHead(404).end();
    const path = req.url.slice(prefix.length);
    forwarded.push(path);
    const up = request({ host: target.hostname, port: target.port, method: req.method, path, headers: { host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.writeHead(502).end());
    up.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    base: `http://127.0.0.1:${port}${prefix}`,
    forwarded,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
