// The client's types are generated from the API's own route definitions: the committed
// client/src/schema.d.ts must be what `npm run client:generate` writes today.
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { configureLogging } from '../../platform/logger.js';
import { CLIENT_SCHEMA_PATH, clientSchemaText } from '../../scripts/client-schema.js';

configureLogging('error', { pretty: false });

it('client/src/schema.d.ts is up to date with the routes (npm run client:generate)', async () => {
  const committed = await readFile(CLIENT_SCHEMA_PATH, 'utf8');
  const fresh = await clientSchemaText();
  expect(fresh).toContain('"/v1/tasks/{task_id}/download"');
  // Compared as a boolean first: a stale file fails with the command that fixes it, not a long diff.
  expect(committed === fresh, 'client/src/schema.d.ts is stale: run `npm run client:generate` and commit it').toBe(true);
}, 120_000);
