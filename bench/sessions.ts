// `npm run bench -- sessions`: what checking an operator session's token costs beside a project
// key's (docs/performance.md#operator-sessions). GET /v1/tasks/counts through app.request() on the
// embedded database (PGlite), the same project and tasks each way: warm (the credential cached,
// the common case) and cold (the cache forgotten before each request, as after any project change).
import { performance } from 'node:perf_hooks';
import { projectChanged } from '../domain/projects/key-cache.js';
import { startRouteApp, taskBody } from '../test/support/route-app.js';
import { pct } from './in-process.js';

const WARM = 2000;
const COLD = 200;

const ms = (x: number) => x.toFixed(3);

export async function benchSessions(): Promise<string> {
  const rt = await startRouteApp();
  try {
    const project = await rt.createProject({ name: 'bench' });
    for (let i = 0; i < 50; i++) await rt.submit(project.api_key, taskBody({ operator_id: i % 2 ? 'alice' : 'bob', file_name: `f${i}` }));
    await rt.drained();
    const session = await rt.call('POST', '/v1/operator-sessions', { token: project.api_key, body: { operator_id: 'alice' } });
    const tokens = { 'project key': project.api_key, 'operator token': session.json.token as string };
    const once = async (token: string) => {
      const t0 = performance.now();
      const res = await rt.app.request('/v1/tasks/counts', { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`counts: ${res.status}`);
      return performance.now() - t0;
    };
    const times: Record<string, { warm: number[]; cold: number[] }> = {};
    for (const name of Object.keys(tokens)) times[name] = { warm: [], cold: [] };
    for (let i = 0; i < 200; i++) for (const t of Object.values(tokens)) await once(t); // warm-up
    // Interleaved, so drift of the machine touches both alike.
    for (let i = 0; i < WARM; i++) for (const [name, t] of Object.entries(tokens)) times[name]!.warm.push(await once(t));
    for (let i = 0; i < COLD; i++) {
      for (const [name, t] of Object.entries(tokens)) {
        await projectChanged(rt.database.db, project.project_id);
        times[name]!.cold.push(await once(t));
      }
    }
    const rows = Object.entries(times).map(([name, t]) => `| ${name} | ${ms(pct(t.warm, 50))} | ${ms(pct(t.warm, 95))} | ${ms(pct(t.cold, 50))} | ${ms(pct(t.cold, 95))} |`);
    return [
      `GET /v1/tasks/counts via app.request(), embedded PGlite, 50 tasks; ${WARM} warm and ${COLD} cold requests each way (ms)`,
      '',
      '| credential | warm p50 | warm p95 | cold p50 | cold p95 |',
      '|---|---|---|---|---|',
      ...rows,
    ].join('\n');
  } finally {
    await rt.close();
  }
}
