// The destinations page (docs/destinations.md): the project's buckets and SFTP directories, a form
// for a new one, a test of each (its steps, and for SFTP the host key the server showed) and
// delete. A fingerprint seen that is not the pinned one can start a new destination with it (the
// API has no update: a destination is made again, its secret typed again, docs/destinations.md).
import { useState } from 'preact/hooks';
import { del, post } from './api.js';
import { DestinationForm } from './destination-form.js';
import { dateTime } from './format.js';
import { useWords } from './i18n.js';
import { usePagedList } from './paged-list.js';
import type { Destination, DestinationTest, SftpDraft } from './types.js';

export function DestinationsPage() {
  const w = useWords();
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  const { items, setItems, cursor, loaded, load } = usePagedList<Destination>('/v1/destinations', (text) => setMessage({ error: true, text }));
  // null: the form is closed; {}: a blank form; fields: a form to pin a fingerprint seen.
  const [draft, setDraft] = useState<SftpDraft | null>(null);
  const [formKey, setFormKey] = useState(0);


  const openForm = (d: SftpDraft) => {
    setDraft(d);
    setFormKey((k) => k + 1);
  };
  const created = (d: Destination) => {
    setDraft(null);
    setMessage({ error: false, text: w.destinationCreated(d.name) });
    void load();
  };
  const removed = (d: Destination) => {
    setItems((old) => old.filter((x) => x.destination_id !== d.destination_id));
    setMessage({ error: false, text: w.destinationDeleted(d.name) });
  };

  return (
    <>
      {draft ? (
        <DestinationForm key={formKey} draft={Object.keys(draft).length ? draft : null} onCreated={created} onClose={() => setDraft(null)} />
      ) : (
        <div class="new-export">
          <button type="button" class="primary" onClick={() => openForm({})}>+ {w.newDestination}</button>
        </div>
      )}
      <section class="card" aria-labelledby="destinations-title">
        <div class="section-head">
          <h2 id="destinations-title">{w.destinations}</h2>
          <button type="button" class="ghost" onClick={() => load()}>{w.refresh}</button>
        </div>
        {message && <p class={message.error ? 'error' : 'ok'} role={message.error ? 'alert' : 'status'}>{message.text}</p>}
        {loaded && items.length === 0 && <p class="empty">{w.noDestinations}</p>}
        <ul class="schedules destinations">
          {items.map((d) => (
            <DestinationRow key={d.destination_id} d={d} onDeleted={removed} onPin={openForm} onError={(text) => setMessage({ error: true, text })} />
          ))}
        </ul>
        {cursor && <button type="button" class="ghost more" onClick={() => load(cursor)}>{w.loadMore}</button>}
      </section>
    </>
  );
}

interface RowProps {
  d: Destination;
  onDeleted: (d: Destination) => void;
  onPin: (draft: SftpDraft) => void;
  onError: (text: string) => void;
}

function DestinationRow({ d, onDeleted, onPin, onError }: RowProps) {
  const w = useWords();
  const [busy, setBusy] = useState(false);
  const [test, setTest] = useState<DestinationTest | null>(null);
  const path = `/v1/destinations/${encodeURIComponent(d.destination_id)}`;

  const run = async (action: 'test' | 'delete') => {
    if (action === 'delete' && !confirm(w.confirmDeleteDestination)) return;
    setBusy(true);
    try {
      if (action === 'delete') {
        await del(path);
        onDeleted(d);
      } else {
        setTest(null);
        setTest((await post<DestinationTest>(`${path}/test`)).json);
      }
    } catch (err) {
      onError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <li class="schedule" aria-labelledby={`dst-${d.destination_id}`}>
      <div class="task-main">
        <div class="task-name" id={`dst-${d.destination_id}`}>
          <span class="dst-name">{d.name}</span>
          <span class="type">{d.kind}</span>
        </div>
        <Where d={d} />
      </div>
      <div class="actions">
        <button type="button" disabled={busy} onClick={() => run('test')}>{w.testDestination}</button>
        <button type="button" class="danger" disabled={busy} onClick={() => run('delete')}>{w.delete}</button>
      </div>
      {busy && <p class="hint wide-row" role="status">{w.busy}</p>}
      {test && <TestResult d={d} test={test} onPin={onPin} />}
    </li>
  );
}

/** Where files go and how the service signs in (which secret, never the secret). */
function Where({ d }: { d: Destination }) {
  const w = useWords();
  if (d.kind === 's3') {
    return (
      <div class="meta">
        <code>{d.endpoint}</code>
        <span>{w.bucket}: {d.bucket}{d.prefix ? `/${d.prefix}` : ''}</span>
        <span>{w.region}: {d.region}</span>
        <span>{w.accessKeyId}: {d.access_key_id}</span>
        <span>{w.created}: {dateTime(d.created_at, w.code)}</span>
        <code class="id">{d.destination_id}</code>
      </div>
    );
  }
  return (
    <div class="meta">
      <code>{`${d.username}@${d.host}:${d.port}${d.path}`}</code>
      <span>{w.authBy}: {d.auth === 'password' ? w.password : w.privateKey}</span>
      <span>{w.hostKey}: <code class="fingerprint">{d.host_key_sha256}</code></span>
      <span>{w.created}: {dateTime(d.created_at, w.code)}</span>
      <code class="id">{d.destination_id}</code>
    </div>
  );
}

type Step = NonNullable<DestinationTest['step']>;
/** An S3 test's steps in the order it takes them (domain/destinations/probe.ts). */
const S3_STEPS = ['connect', 'write', 'remove', 'multipart'] as const satisfies readonly Step[];

/** An S3 test names only the step that failed (an SFTP test lists each): those before it passed. */
function s3Steps(test: DestinationTest): { step: Step; ok: boolean }[] {
  const failed = test.ok ? S3_STEPS.length : S3_STEPS.indexOf(test.step as (typeof S3_STEPS)[number]);
  if (failed < 0) return test.step ? [{ step: test.step, ok: false }] : [];
  return S3_STEPS.slice(0, failed + 1).map((step, i) => ({ step, ok: i < failed }));
}

/** Each step of the test, ✓ or ✗, the error's code and sentence, and the host key the server showed. */
function TestResult({ d, test, onPin }: { d: Destination; test: DestinationTest; onPin: (draft: SftpDraft) => void }) {
  const w = useWords();
  const steps = test.steps ?? s3Steps(test);
  const seen = test.host_key_sha256;
  const otherKey = d.kind === 'sftp' && seen !== undefined && seen !== d.host_key_sha256;
  return (
    <div class={`probe ${test.ok ? 'ok' : 'error'}`} role="status" aria-label={w.testResult(d.name)}>
      <p class="probe-head">{test.ok ? w.testPassed(test.latency_ms ?? 0) : w.testFailed}</p>
      {steps.length > 0 && (
        <ol class="steps">
          {steps.map((s) => (
            <li key={s.step} class={s.ok ? 'step-ok' : 'step-failed'}>
              {s.ok ? '✓' : '✗'} {w.probeSteps[s.step] ?? s.step}
            </li>
          ))}
        </ol>
      )}
      {test.error && (
        <p class="task-error">
          <code>{test.error.code}</code> {test.error.message}
        </p>
      )}
      {seen && (
        <p class="seen-key">
          {w.hostKeySeen}: <code class="fingerprint">{seen}</code> {otherKey ? <strong>{w.hostKeyDiffers}</strong> : <span>{w.hostKeyPinned}</span>}
        </p>
      )}
      {otherKey && d.kind === 'sftp' && (
        <button type="button" onClick={() => onPin({ name: d.name, host: d.host, port: d.port, username: d.username, path: d.path, host_key_sha256: seen })}>{w.pinFingerprint}</button>
      )}
    </div>
  );
}
