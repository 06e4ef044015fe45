// `npm run demo`: against a running `npm start`, registers a demo project, exports the built-in
// demo source as CSV, follows the task and prints the download link and a link that opens the
// demo operator's page (an operator session).
import { loadConfig } from '../platform/config.js';
import { loadSecrets } from '../platform/secrets.js';

const config = loadConfig();
const base = config.publicBaseUrl;
const { adminToken } = loadSecrets(config);

async function call(path: string, token: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  }).catch(() => {
    console.error(`no service at ${base}: start it first with \`npm start\``);
    process.exit(1);
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

const host = new URL(base).host;
// The demo task mails this address when it ends; `npm start` catches the mail (no SMTP_URL).
const DEMO_EMAIL = 'demo-user@example.com';
const project = await call('/v1/projects', adminToken, {
  name: 'demo',
  source_hosts: [host, `127.0.0.1:${config.PORT}`, `localhost:${config.PORT}`],
  email_domains: [DEMO_EMAIL.split('@')[1]],
});
console.log(`project ${project.project_id} registered (api_key ${project.api_key})`);
const apiKey = project.api_key as string;
let task = await call('/v1/tasks', apiKey, {
  source_url: `http://127.0.0.1:${config.PORT}/demo/orders?month=2026-11`,
  operator_id: 'demo-user',
  file_name: '演示订单-2026-11',
  notify_email: DEMO_EMAIL,
  locale: 'zh-CN',
});
console.log(`task ${task.task_id} submitted`);
while (task.status === 'queued' || task.status === 'running') {
  await new Promise((r) => setTimeout(r, 500));
  task = await call(`/v1/tasks/${task.task_id}`, apiKey);
  const p = task.progress as { percent: number };
  process.stdout.write(`\r  ${task.status} ${task.stage ?? ''} ${p.percent}%        `);
}
console.log();
if (task.status !== 'succeeded') {
  console.error(`the export ${task.status}: ${JSON.stringify(task.error)}`);
  process.exit(1);
}
const [file] = task.files as Array<{ name: string; rows: number; bytes: number; url: string }>;
console.log(`done: ${file!.name}, ${file!.rows} rows, ${file!.bytes} bytes`);
console.log(`download: ${file!.url}`);
console.log(`or: curl -H 'Authorization: Bearer ${apiKey}' -o out.csv ${base}/v1/tasks/${task.task_id}/download`);

// The demo operator's own page (docs/console.md#the-operators-center): no key, demo-user's tasks only.
const operator = await call('/v1/operator-sessions', apiKey, { operator_id: 'demo-user', permissions: ['cancel', 'retry', 'pause'], expires_in: 86_400 });
console.log(`operator's page (demo-user, valid for a day): ${operator.url}`);

await printCaughtMail();

/** The demo's e-mail, caught by `npm start`'s local SMTP server: the page that shows it. */
async function printCaughtMail(): Promise<void> {
  let caught = false;
  for (let i = 0; i < 20 && !caught; i++) {
    const { catching, items } = (await call('/v1/admin/mails', adminToken)) as { catching: boolean; items: Array<{ to: string[] }> };
    if (!catching) return void console.log(`e-mail: sent to ${DEMO_EMAIL} through SMTP_URL`);
    caught = items.some((m) => m.to.includes(DEMO_EMAIL));
    if (!caught) await new Promise((r) => setTimeout(r, 500));
  }
  // The admin token opens the page; shown to a person at a terminal only, never into a pipe or a file.
  const page = process.stdout.isTTY ? `${base}/mails#token=${encodeURIComponent(adminToken)}` : `${base}/mails (sign in with the admin token)`;
  if (caught) console.log(`e-mail to ${DEMO_EMAIL}, caught locally: ${page}`);
  else console.log(`e-mail to ${DEMO_EMAIL}: not caught within 10 s (see the task's deliveries); the catcher's page: ${page}`);
}
