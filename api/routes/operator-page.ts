// GET and POST /operator: the operator's center (docs/console.md#the-operators-center), framed or
// not. Its CSP frame-ancestors must name the origins of the token's project (embed_origins), but
// the token arrives in the URL's fragment, which never reaches a server. So the page loads in two
// steps (docs/adr/0030-embedding-the-operator-center.md):
//  1. GET answers a bootstrap that shows nothing and can do nothing; any page may frame it. Its
//     script takes the token out of the fragment and posts it back to this same path in a form
//     body (never a URL, a log line or a Referer).
//  2. POST looks the token up as the API does and answers the center with frame-ancestors set to
//     that project's embed_origins ('none' by default), so the browser itself refuses a host that
//     is not listed. The session's operator, permissions, locale and expiry ride in <meta> tags,
//     since the policy allows no inline script. An unknown, revoked or expired token gets the
//     ended-session page, which like the bootstrap holds nothing worth framing.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Hono } from 'hono';
import type { OperatorSessionRow, ProjectRow } from '../../db/schema.js';
import { settingsOf } from '../../domain/projects/projects.js';
import type { AppEnv } from '../types.js';
import { bodyOf } from '../download.js';
import { common, notBuilt, policy } from './console.js';

export type SessionLookup = (token: string) => Promise<{ session: OperatorSessionRow; project: ProjectRow } | undefined>;

/** An operator token's shape (domain/projects/sessions.ts): anything else is not looked up. */
const TOKEN = /^dco_[A-Za-z0-9_-]{10,200}$/;
/** The largest form POST /operator reads: the token and its field name, with room to spare. */
export const OPERATOR_FORM_BYTES = 1024;

const escape = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export function operatorPageApp(dir: string, lookup: SessionLookup) {
  const app = new Hono<AppEnv>();

  const page = async (host: string | undefined, meta: Record<string, string>, ancestors: string | null) => {
    const html = await readFile(join(dir, 'operator.html'), 'utf8').catch(() => null);
    if (!html) throw notBuilt();
    const tags = Object.entries(meta).map(([k, v]) => `<meta name="dc-${k}" content="${escape(v)}">`).join('\n');
    return new Response(bodyOf(Buffer.from(html.replace('<!--META-->', () => tags))), {
      status: 200,
      headers: {
        ...common,
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'Content-Security-Policy': policy(host, ancestors),
        // Browsers that know frame-ancestors ignore this; older ones get the safe default.
        ...(ancestors === "'none'" ? { 'X-Frame-Options': 'DENY' } : {}),
      },
    });
  };

  app.get('/', (c) => page(c.req.header('host'), { step: 'boot' }, null));

  app.post('/', async (c) => {
    const host = c.req.header('host');
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const token = typeof form.token === 'string' && TOKEN.test(form.token) ? form.token : undefined;
    const found = token ? await lookup(token) : undefined;
    if (!found) return page(host, { step: 'ended' }, null);
    const { session, project } = found;
    const origins = settingsOf(project).embed_origins;
    return page(
      host,
      { step: 'center', operator: session.operatorId, permissions: session.permissions.join(' '), locale: session.locale, expires: session.expiresAt.toISOString() },
      origins.length ? origins.join(' ') : "'none'",
    );
  });
  return app;
}
