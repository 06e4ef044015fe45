// The form of POST /v1/destinations (docs/destinations.md): an S3-compatible bucket or an SFTP
// directory. The secrets are password fields, and an SFTP private key is read from a file chosen
// (never put in a visible field); none is kept once sent, and the API never answers them back.
import { useEffect, useRef, useState } from 'preact/hooks';
import { post } from './api.js';
import { useWords, type Words } from './i18n.js';
import type { Destination, SftpDraft } from './types.js';

/** The API's own limit of a private key (api/schemas/destinations.ts). */
const KEY_LIMIT = 16_384;

async function privateKeyOf(input: HTMLInputElement | null, w: Words): Promise<string | undefined> {
  const file = input?.files?.[0];
  if (!file) return undefined;
  if (file.size > KEY_LIMIT) throw new Error(w.keyTooLarge);
  return file.text();
}

async function bodyOf(form: HTMLFormElement, w: Words): Promise<Record<string, unknown>> {
  const data = new FormData(form);
  const text = (k: string) => String(data.get(k) ?? '').trim();
  // Secrets are sent as typed: a space may belong to a password.
  const secret = (k: string) => String(data.get(k) ?? '');
  const kind = text('kind');
  const body: Record<string, unknown> = { name: text('name'), kind };
  if (kind === 's3') {
    Object.assign(body, { endpoint: text('endpoint'), bucket: text('bucket'), access_key_id: text('access_key_id'), secret_access_key: secret('secret_access_key'), path_style: data.get('path_style') === 'on' });
    if (text('region')) body.region = text('region');
    if (text('prefix')) body.prefix = text('prefix');
    return body;
  }
  Object.assign(body, { host: text('host'), username: text('username'), host_key_sha256: text('host_key_sha256'), path: text('path') });
  if (text('port')) body.port = Number(text('port'));
  if (text('auth') === 'password') {
    body.password = secret('password');
    return body;
  }
  body.private_key = await privateKeyOf(form.querySelector<HTMLInputElement>('input[name="private_key"]'), w);
  if (secret('passphrase')) body.passphrase = secret('passphrase');
  return body;
}

interface Props {
  /** Starting values of an SFTP form (a fingerprint to pin); absent, an empty S3 form. */
  draft: SftpDraft | null;
  onCreated: (d: Destination) => void;
  onClose: () => void;
}

export function DestinationForm({ draft, onCreated, onClose }: Props) {
  const w = useWords();
  const [kind, setKind] = useState(draft ? 'sftp' : 's3');
  const [auth, setAuth] = useState('private_key');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const section = useRef<HTMLElement>(null);
  // Opened from a test's result further down the list: the form comes into view.
  useEffect(() => section.current?.scrollIntoView({ block: 'start' }), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    if (!form.reportValidity()) return;
    setBusy(true);
    setError(null);
    try {
      const { json } = await post<Destination>('/v1/destinations', await bodyOf(form, w));
      form.reset();
      onCreated(json);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="destination-form-title" ref={section}>
      <div class="section-head">
        <h2 id="destination-form-title">{w.newDestination}</h2>
        <button type="button" class="ghost" onClick={onClose}>{w.closeForm}</button>
      </div>
      <form id="destination-form" class="submit-form" method="post" action="/" onSubmit={submit} autocomplete="off">
        <label>
          <span>{w.destinationName}</span>
          <input name="name" required maxLength={100} defaultValue={draft?.name ?? ''} />
        </label>
        <label>
          <span>{w.destinationKind}</span>
          <select name="kind" value={kind} onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value)}>
            <option value="s3">S3</option>
            <option value="sftp">SFTP</option>
          </select>
        </label>
        {kind === 's3' ? <S3Fields /> : <SftpFields draft={draft} auth={auth} setAuth={setAuth} />}
        <div class="form-buttons wide">
          <button type="submit" class="primary" disabled={busy}>{w.createDestination}</button>
          {busy && <span role="status">{w.busy}</span>}
        </div>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
    </section>
  );
}

function S3Fields() {
  const w = useWords();
  return (
    <>
      <label class="wide">
        <span>{w.endpoint}</span>
        <input name="endpoint" type="url" required maxLength={2048} placeholder="https://s3.eu-west-1.amazonaws.com" />
      </label>
      <label>
        <span>{w.region}</span>
        <input name="region" maxLength={32} placeholder="us-east-1" />
      </label>
      <label>
        <span>{w.bucket}</span>
        <input name="bucket" required minLength={3} maxLength={63} />
      </label>
      <label>
        <span>{w.prefix}</span>
        <input name="prefix" maxLength={512} placeholder="exports/" />
      </label>
      <label>
        <span>{w.accessKeyId}</span>
        <input name="access_key_id" required maxLength={256} />
      </label>
      <label>
        <span>{w.secretAccessKey}</span>
        <input name="secret_access_key" type="password" required maxLength={256} autocomplete="new-password" />
      </label>
      <label class="check">
        <input name="path_style" type="checkbox" defaultChecked />
        <span>{w.pathStyle}</span>
      </label>
    </>
  );
}

function SftpFields({ draft, auth, setAuth }: { draft: SftpDraft | null; auth: string; setAuth: (a: string) => void }) {
  const w = useWords();
  return (
    <>
      <label>
        <span>{w.sftpHost}</span>
        <input name="host" required maxLength={253} placeholder="sftp.example.com" defaultValue={draft?.host ?? ''} />
      </label>
      <label>
        <span>{w.port}</span>
        <input name="port" type="number" min={1} max={65535} step={1} defaultValue={String(draft?.port ?? 22)} />
      </label>
      <label>
        <span>{w.username}</span>
        <input name="username" required maxLength={128} defaultValue={draft?.username ?? ''} />
      </label>
      <label>
        <span>{w.directory}</span>
        <input name="path" required maxLength={1024} pattern="/.*" placeholder="/incoming" defaultValue={draft?.path ?? ''} />
      </label>
      <label class="wide">
        <span>{w.hostKey}</span>
        <input name="host_key_sha256" required maxLength={60} pattern="SHA256:[A-Za-z0-9+\/]{43}=?" placeholder="SHA256:…" title={w.hostKeyHint} defaultValue={draft?.host_key_sha256 ?? ''} />
      </label>
      <label>
        <span>{w.authBy}</span>
        <select name="auth" value={auth} onChange={(e) => setAuth((e.currentTarget as HTMLSelectElement).value)}>
          <option value="private_key">{w.privateKey}</option>
          <option value="password">{w.password}</option>
        </select>
      </label>
      {auth === 'password' ? (
        <label>
          <span>{w.password}</span>
          <input name="password" type="password" required maxLength={1024} autocomplete="new-password" />
        </label>
      ) : (
        <>
          <label>
            <span>{w.privateKeyFile}</span>
            <input name="private_key" type="file" required />
          </label>
          <label>
            <span>{w.passphrase}</span>
            <input name="passphrase" type="password" maxLength={1024} autocomplete="new-password" />
          </label>
        </>
      )}
      {draft && <p class="hint wide">{w.pinHint}</p>}
    </>
  );
}
