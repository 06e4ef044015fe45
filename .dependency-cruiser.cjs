// The layering of the code (README "Where things are"): each folder may import only the folders
// below it, so no folder imports one that imports it back. `npm run lint` runs this.
//
//   app/          entry points and wiring      → everything below
//   api/          HTTP transport (Hono)         → domain, db, platform, model
//   activities/   activity factories            → domain, db, platform, model
//   domain/       the business                  → workflows (to start them by reference), db, platform, model
//   workflows/    deterministic orchestration   → model only
//   db/           schema and client             → model
//   platform/     config, storage, crypto, ...  → model
//   model/        pure vocabulary (no I/O)      → nothing of ours
//   console/      the web console (browser code) → model, and the client's generated API types
//                 (client/src/schema.d.ts, types only): it talks to the server over HTTP
//   client/       the typed API client (a package of its own) → only itself (its generated schema) and npm packages
//
// Inside domain/ the rooms are ordered too: schedules → tasks → usage → downloads → destinations → projects → callbacks → staging → source → formats.
const ours = '^(app|api|activities|domain|workflows|db|platform|model|scripts|bench|test|console|client)/';

/** A rule: files under `from` may import, of our folders, only those matching `allowed`. */
const only = (name, from, allowed) => ({
  name,
  severity: 'error',
  comment: `${from} may import only ${allowed}`,
  from: { path: `^${from}` },
  to: { path: ours, pathNot: `^(${allowed})` },
});

const rooms = ['schedules', 'tasks', 'usage', 'downloads', 'destinations', 'projects', 'callbacks', 'staging', 'source', 'formats'];
const roomRules = rooms.map((room, i) =>
  only(`domain-${room}`, `domain/${room}/`, [...rooms.slice(i).map((r) => `domain/${r}/`), 'domain/(errors|cursor)\\.ts', 'db/', 'platform/', 'model/', ...(room === 'tasks' || room === 'schedules' ? ['workflows/'] : [])].join('|')),
);

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'no import cycles, of files or of folders', from: {}, to: { circular: true } },
    { name: 'not-to-tests', severity: 'error', comment: 'only tests and benchmarks import test code', from: { pathNot: '^(test|bench|scripts)/' }, to: { path: '^test/' } },
    { name: 'not-to-client', severity: 'error', comment: 'the service does not depend on its client; only tests and scripts use it (and the console its types)', from: { pathNot: '^(test|scripts|client|console)/' }, to: { path: '^client/' } },
    only('client', 'client/', 'client/'),
    only('api', 'api/', 'api/|domain/|db/|platform/|model/'),
    only('activities', 'activities/', 'activities/|domain/|db/|platform/|model/'),
    only('workflows', 'workflows/', 'workflows/|model/'),
    only('domain-errors', 'domain/errors\\.ts', 'model/'),
    only('domain-cursor', 'domain/cursor\\.ts', 'domain/errors\\.ts|model/'),
    ...roomRules,
    only('db', 'db/', 'db/|model/'),
    only('platform', 'platform/', 'platform/|model/'),
    only('model', 'model/', 'model/'),
    only('console', 'console/', 'console/|model/|client/src/schema\\.d\\.ts$'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|data|dist|console/dist|client/dist|\\.tools|db/migrations)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
  },
};
