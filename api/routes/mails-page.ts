// GET /mails: a page to read the mails the local SMTP catcher kept (npm start without SMTP_URL,
// docs/notifications.md#5-e-mail). It holds no data: its script asks GET /v1/admin/mails with the
// admin token, taken from the address's fragment (#token=…, then removed from the address bar at
// once) or typed in, and kept in sessionStorage. A mail's HTML is shown in a sandboxed frame: no
// script of the mail runs, and it cannot reach this page or its token.
import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import type { AppEnv } from '../types.js';
import { common } from './console.js';

const SCRIPT = `
const $ = (s) => document.querySelector(s);
const h = (tag, text) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; return e; };
const m = /^#token=(.+)$/.exec(location.hash);
if (m) { sessionStorage.setItem('dc.admin', decodeURIComponent(m[1])); history.replaceState(null, '', location.pathname); }
const get = async (path) => {
  const r = await fetch(path, { headers: { Authorization: 'Bearer ' + sessionStorage.getItem('dc.admin') } });
  if (r.status === 401 || r.status === 403) { sessionStorage.removeItem('dc.admin'); signIn(); throw new Error('signed out'); }
  return r.json();
};
function signIn() { $('#signin').hidden = false; $('#mails').hidden = true; }
async function show(id) {
  const mail = await get('/v1/admin/mails/' + encodeURIComponent(id));
  const v = $('#mail'); v.replaceChildren();
  v.append(h('h2', mail.subject), h('p', 'From ' + mail.from + ' to ' + mail.to.join(', ') + ', ' + mail.received_at));
  if (mail.html) {
    const f = h('iframe'); f.title = 'The mail (HTML)';
    f.setAttribute('sandbox', 'allow-popups allow-popups-to-escape-sandbox');
    f.srcdoc = '<base target="_blank">' + mail.html; v.append(f);
  }
  v.append(h('h3', 'Plain text'), h('pre', mail.text));
}
async function load() {
  if (!sessionStorage.getItem('dc.admin')) return signIn();
  $('#signin').hidden = true; $('#mails').hidden = false;
  const { catching, items } = await get('/v1/admin/mails');
  const list = $('#list'); list.replaceChildren();
  if (!catching) list.append(h('li', 'This service sends mail through SMTP_URL: nothing is caught here.'));
  else if (!items.length) list.append(h('li', 'No mail caught yet.'));
  for (const it of items) {
    const b = h('button', it.subject + ' — ' + it.to.join(', ')); b.type = 'button';
    b.onclick = () => show(it.mail_id); const li = h('li'); li.append(b); list.append(li);
  }
  if (items[0]) await show(items[0].mail_id);
}
$('#signin').onsubmit = (e) => { e.preventDefault(); sessionStorage.setItem('dc.admin', $('#token').value.trim()); load(); };
$('#reload').onclick = () => load();
load();
`;
const STYLE = `body{font-family:system-ui,sans-serif;margin:24px;color:#111}ul{padding:0;list-style:none}li button{background:none;border:0;color:#1f4fd1;cursor:pointer;padding:4px 0;text-align:left;font:inherit}
iframe{width:100%;height:480px;border:1px solid #ccc}pre{white-space:pre-wrap;background:#f6f6f6;padding:12px}`;

const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Caught mails · Download Center</title><style>${STYLE}</style></head>
<body><h1>Caught mails</h1>
<form id="signin" hidden><label>Admin token <input id="token" type="password" autocomplete="off" required></label> <button>Open</button></form>
<div id="mails" hidden><button id="reload" type="button">Reload</button><ul id="list"></ul><section id="mail"></section></div>
<script>${SCRIPT}</script></body></html>`;

const POLICY = [
  "default-src 'none'",
  `script-src ${hash(SCRIPT)}`,
  // The mail's HTML is styled by attributes, which only 'unsafe-inline' allows (no script can use it).
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  // The mail's own frame: srcdoc, no remote images or anything else of the network.
  "frame-src 'self'",
  "img-src data:",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function mailsPageApp() {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => c.body(PAGE, 200, { ...common, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Security-Policy': POLICY }));
  return app;
}
