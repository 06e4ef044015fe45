// The API built from the route definitions alone, with no database, Temporal or server: createApp
// with inert dependencies (nothing is called while routes are defined). Its OpenAPI document feeds
// `npm run client:generate` (scripts/generate-client.ts) and the tests of the document and the client's types.
import { createApp, type ApiDeps } from '../api/app.js';
import { openApiDocument } from '../api/openapi-document.js';
import { loadConfig } from '../platform/config.js';

export function offlineApp(serverUrl = 'http://localhost:8080') {
  const config = loadConfig({ PUBLIC_BASE_URL: serverUrl });
  // Any call answers a promise of a no-op: enough for the LISTEN the event hub starts with.
  const inert = new Proxy({}, { get: () => () => Promise.resolve(async () => {}) });
  const deps = {
    config,
    secrets: { adminToken: 'offline-document', linkSecret: 'offline-document', adminTokenGenerated: false },
    database: inert,
    storage: inert,
    temporal: inert,
  } as unknown as ApiDeps;
  const { app, realtime } = createApp(deps);
  return { app, document: () => openApiDocument(app, serverUrl), close: () => realtime.hub.close() };
}

export async function offlineDocument(serverUrl?: string) {
  const api = offlineApp(serverUrl);
  await api.close();
  return api.document();
}
