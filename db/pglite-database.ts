// The PGlite side of openDatabase (db/client.ts), in a module of its own so a process on Postgres
// (`npm start`'s worker process, `npm run worker`, `npm run api`) never loads PGlite's JavaScript
// and its drizzle driver (docs/adr/0055-idle-memory-of-npm-start.md).
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrateSchema } from './migrate.js';
import { openPglite, pgliteOptions } from './pglite.js';
import * as schema from './schema.js';
import { serveOverWire } from './wire.js';

/** `memory`: a PGlite that keeps nothing on disk, started from a dump of another when one is given. */
export async function openPgliteDatabase(opts: { dataDir: string; memory?: { loadDataDir?: Blob } }) {
  const client = opts.memory ? await PGlite.create({ ...pgliteOptions, ...opts.memory }) : await openPglite(join(opts.dataDir, 'pglite'));
  const db = drizzlePglite(client, { schema });
  return {
    db,
    kind: 'pglite' as const,
    migrate: () => migrateSchema(db, (config) => migratePglite(db, config)),
    ping: async () => {
      await client.query('select 1');
    },
    listen: async (channel: string, onNotice: (payload: string) => void, onConnect?: () => void) => {
      // PGlite is in-process: a NOTIFY from any query on this instance reaches its listeners.
      const unlisten = await client.listen(channel, onNotice);
      onConnect?.();
      return unlisten;
    },
    close: () => client.close(),
    serveWire: () => serveOverWire(client),
  };
}
