// `npm run migrate`: applies the committed migrations to DATABASE_URL (or the embedded PGlite).
import { loadConfig } from '../platform/config.js';
import { openDatabase } from '../db/client.js';

const config = loadConfig();
const database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR });
await database.migrate();
await database.close();
console.log(`migrations applied (${database.kind})`);
