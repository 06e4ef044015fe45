// The embedded database on a thread of its own (docs/adr/0057-api-first-under-export-load.md): PGlite
// and its wire server (db/wire.ts) run here, and every query reaches it over the loopback, the API
// process's own as the worker process's. So PGlite's execution of the worker process's queries no
// longer takes turns with the API's requests on the API's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { openPglite } from './pglite.js';
import { serveOverWire } from './wire.js';

export interface PgliteThreadData {
  dir: string;
}

/** From the thread to its opener. */
export type FromPgliteThread = { kind: 'ready'; url: string } | { kind: 'failed'; message: string } | { kind: 'closed' };
/** From the opener: close the wire (its clients cut off), then PGlite (everything on disk). */
export type ToPgliteThread = { kind: 'close' };

const port = parentPort!;
const { dir } = workerData as PgliteThreadData;
const send = (m: FromPgliteThread) => port.postMessage(m);

try {
  const pg = await openPglite(dir);
  const wire = await serveOverWire(pg);
  let closing = false;
  port.on('message', (m: ToPgliteThread) => {
    if (m.kind !== 'close' || closing) return;
    closing = true;
    void (async () => {
      await wire.close();
      await pg.close();
      send({ kind: 'closed' });
      port.close();
    })();
  });
  send({ kind: 'ready', url: wire.url });
} catch (err) {
  send({ kind: 'failed', message: (err as Error).message });
  port.close();
}
