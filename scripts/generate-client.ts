// npm run client:generate: writes client/src/schema.d.ts from the route definitions (no server needed).
import { writeFile } from 'node:fs/promises';
import { configureLogging } from '../platform/logger.js';
import { CLIENT_SCHEMA_PATH, clientSchemaText } from './client-schema.js';

configureLogging('warn', { pretty: false });
await writeFile(CLIENT_SCHEMA_PATH, await clientSchemaText());
console.log(`wrote ${CLIENT_SCHEMA_PATH.pathname}`);
