// An example business system (docs/embedding.md): on each visit it mints an operator session with
// the project key, on the server, and serves docs/examples/embed-host.html framing the session's
// url. Run: DC_URL=http://127.0.0.1:8080 DC_PROJECT_KEY=dck_… node docs/examples/embed-host.mjs
// and list http://127.0.0.1:3000 in the project's embed_origins. A real system would use its
// signed-in user's id as operator_id and revoke the session at sign-out.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const { DC_URL = 'http://127.0.0.1:8080', DC_PROJECT_KEY, PORT = '3000', OPERATOR = 'demo-operator' } = process.env;
if (!DC_PROJECT_KEY) throw new Error('set DC_PROJECT_KEY to the project API key (it stays on this server)');
const page = readFileSync(new URL('./embed-host.html', import.meta.url), 'utf8');
const escape = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

createServer(async (req, res) => {
  if (req.url !== '/') return void res.writeHead(404).end();
  const r = await fetch(`${DC_URL}/v1/operator-sessions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${DC_PROJECT_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ operator_id: OPERATOR, permissions: ['cancel', 'retry'], locale: 'en', expires_in: 3600 }),
  });
  if (r.status !== 201) return void res.writeHead(502).end(`Download Center answered ${r.status}`);
  const { url } = await r.json();
  // no-store: the page holds a fresh token; no-referrer: nothing of it leaves in a Referer.
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
  res.end(page.replace('%CENTER_URL%', escape(url)));
}).listen(Number(PORT), '127.0.0.1', () => console.log(`example host page on http://127.0.0.1:${PORT}/`));
