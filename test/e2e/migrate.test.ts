import { expect, it } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { createDatabase, dropDatabase } from '../support/env.js';

it('lets several processes migrate one fresh database at the same time', async () => {
  const url = await createDatabase();
  const dbs = await Promise.all([1, 2, 3].map(() => openDatabase({ url, dataDir: '/nonexistent' })));
  try {
    await Promise.all(dbs.map((d) => d.migrate()));
    const rows = await dbs[0]!.db.query.tasks.findMany();
    expect(rows).toEqual([]);
  } finally {
    await Promise.all(dbs.map((d) => d.close()));
    await dropDatabase(url);
  }
});
