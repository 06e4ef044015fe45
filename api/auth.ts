import { eq } from 'drizzle-orm';
import { createMiddleware } from 'hono/factory';
import { projects, type ProjectRow } from '../db/schema.js';
import { safeEqual, sha256Hex } from '../lib/crypto.js';
import { ApiError } from './errors.js';
import type { ApiDeps, AppEnv, Principal } from './types.js';

/** Bearer admin token or project API key; `?access_token=` is accepted only where allowed (WebSocket upgrade). */
export function authenticate(deps: ApiDeps, opts: { allowQueryToken?: boolean } = {}) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header('authorization');
    let token = header?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (!token && opts.allowQueryToken) token = c.req.query('access_token');
    if (!token) throw new ApiError(401, 'unauthorized', 'send Authorization: Bearer <api_key>', undefined, { 'WWW-Authenticate': 'Bearer' });
    c.set('principal', await resolve(deps, token));
    await next();
  });
}

async function resolve(deps: ApiDeps, token: string): Promise<Principal> {
  if (safeEqual(token, deps.secrets.adminToken)) return { kind: 'admin' };
  const [project] = await deps.database.db.select().from(projects).where(eq(projects.apiKeyHash, sha256Hex(token)));
  if (!project) throw new ApiError(401, 'unauthorized', 'the API key is not valid', undefined, { 'WWW-Authenticate': 'Bearer' });
  return { kind: 'project', project };
}

export function requireAdmin(p: Principal): void {
  if (p.kind !== 'admin') throw new ApiError(403, 'forbidden', 'this call needs the admin token');
}

export function requireProject(p: Principal): ProjectRow {
  if (p.kind !== 'project') throw new ApiError(403, 'forbidden', 'this call needs a project API key');
  return p.project;
}
