// A fast generator of the source protocol, run as its own process by bench/run.ts so the source's
// CPU is not the service's: GET /export?total=N&page=P&page_size=S → { total, data: [...] }.
// Rows are written as JSON text directly (bench/rows.ts): the source should cost as little as a
// real system's cached query would.
import { createServer } from 'node:http';
import { rowJson } from './rows.js';

const port = Number(process.argv[2] ?? 0);
// A slow source (a real database query): every page answers this much later.
const DELAY_MS = Number(process.env.BENCH_SOURCE_DELAY_MS ?? 0);

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const total = Number(url.searchParams.get('total') ?? 0);
  const page = Number(url.searchParams.get('page') ?? 0);
  const size = Number(url.searchParams.get('page_size') ?? 500);
  const parts: string[] = [];
  for (let i = page * size; i < Math.min(total, (page + 1) * size); i++) parts.push(rowJson(i));
  const body = `{"total":${total},"data":[${parts.join(',')}]}`;
  const send = () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  if (DELAY_MS > 0) setTimeout(send, DELAY_MS);
  else send();
});
server.keepAliveTimeout = 30_000;
server.listen(port, '127.0.0.1', () => {
  console.log(`listening ${(server.address() as { port: number }).port}`);
});
