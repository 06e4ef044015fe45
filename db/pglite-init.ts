// `node --import tsx db/pglite-init.ts <dir>`: creates an empty PGlite data directory (see db/pglite.ts).
import { PGlite } from '@electric-sql/pglite';
import { pgliteOptions } from './pglite.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: pglite-init.ts <dir>');
const db = await PGlite.create(dir, pgliteOptions);
await db.close();
