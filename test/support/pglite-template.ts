// A migrated PGlite's data directory, made once per schema (migrations and functions) and kept in the temp dir:
// each route test file starts its in-memory database from it (about 0.6 s on this machine)
// instead of running initdb and the migrations (about 1.8 s).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { functionsFolder, migrateSchema, migrationsFolder } from '../../db/migrate.js';
import { pgliteOptions } from '../../db/pglite.js';
import { randomToken } from '../../platform/crypto.js';

/** Changes with any migration or function file and with PGlite's own version (its data directory format). */
function templateKey(): string {
  const h = createHash('sha256');
  h.update(readFileSync(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url)));
  for (const folder of [migrationsFolder, functionsFolder]) {
    for (const name of readdirSync(folder, { recursive: true }).map(String).sort()) {
      if (name.endsWith('.sql') || name.endsWith('.json')) h.update(name).update(readFileSync(join(folder, name)));
    }
  }
  return h.digest('hex').slice(0, 16);
}

export async function migratedTemplate(): Promise<Blob> {
  const file = join(tmpdir(), `dc-pglite-template-${templateKey()}.tar`);
  if (existsSync(file)) return new Blob([readFileSync(file)]);
  const pg = await PGlite.create(pgliteOptions);
  try {
    const db = drizzle(pg);
    await migrateSchema(db, (config) => migrate(db, config));
    const dump = await pg.dumpDataDir('none');
    // Two files making it at once: each writes its own, the rename makes one whole file win.
    const part = `${file}.${randomToken(6)}`;
    writeFileSync(part, Buffer.from(await dump.arrayBuffer()));
    renameSync(part, file);
    return dump;
  } finally {
    await pg.close();
  }
}
