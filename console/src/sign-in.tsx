// Sign-in with a project key: checked by one list call, then kept in sessionStorage (this tab only).
// The form is POST and never submitted by the browser itself, so the key cannot land in a URL.
import { useState } from 'preact/hooks';
import { ApiError, getJson, session } from './api.js';
import { useWords } from './i18n.js';

export function SignIn({ onSignedIn }: { onSignedIn: (key: string) => void }) {
  const w = useWords();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const input = (e.currentTarget as HTMLFormElement).elements.namedItem('key') as HTMLInputElement;
    const key = input.value.trim();
    if (!key) return;
    setBusy(true);
    setError(null);
    try {
      await getJson('/v1/tasks?limit=1', key);
      session.set(key);
      input.value = '';
      onSignedIn(key);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? w.badKey : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card sign-in" method="post" action="/" onSubmit={submit} aria-labelledby="sign-in-title">
      <h2 id="sign-in-title">{w.signIn}</h2>
      <label for="key">{w.apiKey}</label>
      <input id="key" name="key" type="password" autocomplete="off" spellcheck={false} required aria-describedby="key-hint" />
      <p id="key-hint" class="hint">{w.apiKeyHint}</p>
      {error && <p class="error" role="alert">{error}</p>}
      <button type="submit" class="primary" disabled={busy}>{busy ? w.busy : w.signIn}</button>
    </form>
  );
}
