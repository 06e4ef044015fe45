// Calls to the API with the project key in the Authorization header (never in a URL). Errors keep
// the API's envelope: the code for the program, the message (a sentence) for the person.
// The operator's center keeps its token under another name (operator-main.tsx), so a project key
// signed in on the console of the same tab is neither used nor replaced by it.
let KEY = 'dc.key';

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  set: (key: string) => sessionStorage.setItem(KEY, key),
  clear: () => sessionStorage.removeItem(KEY),
  storeAs: (name: string) => void (KEY = name),
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function failure(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => null)) as { error?: { code: string; message: string; details?: { field: string; message: string }[] } } | null;
  const e = body?.error;
  const details = e?.details?.map((d) => `${d.field}: ${d.message}`).join('; ');
  return new ApiError(res.status, e?.code ?? 'http_error', e ? `${e.message}${details ? ` (${details})` : ''}` : `HTTP ${res.status}`);
}

async function call(path: string, init: RequestInit = {}, key = session.key()): Promise<Response> {
  const headers = new Headers(init.headers);
  if (key) headers.set('Authorization', `Bearer ${key}`);
  if (init.body) headers.set('Content-Type', 'application/json');
  const res = await fetch(path, { ...init, headers, cache: 'no-store', credentials: 'omit' });
  if (!res.ok) throw await failure(res);
  return res;
}

export async function getJson<T>(path: string, key?: string): Promise<T> {
  return (await call(path, {}, key)).json() as Promise<T>;
}

export async function post<T>(path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const res = await call(path, { method: 'POST', body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: (res.status === 204 ? null : await res.json()) as T };
}

export async function del(path: string): Promise<void> {
  await call(path, { method: 'DELETE' });
}

export interface PreviewFile {
  name: string;
  bytes: Uint8Array;
  rows: number;
  total: number;
  /** A CSV's delimiter as the form asked for it (absent: the project's default, read from the file). */
  delimiter?: string | undefined;
}

/** POST /v1/tasks/preview: the rendered file (csv or xlsx) of the first rows. */
export async function preview(body: unknown): Promise<PreviewFile> {
  const res = await call('/v1/tasks/preview', { method: 'POST', body: JSON.stringify(body) });
  const disposition = res.headers.get('content-disposition') ?? '';
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
  const name = star ? decodeURIComponent(star) : 'preview';
  return { name, bytes: new Uint8Array(await res.arrayBuffer()), rows: Number(res.headers.get('x-preview-rows') ?? 0), total: Number(res.headers.get('x-source-total') ?? 0) };
}

/** The query string of a task list: the filters (dates as local days), the cursor. */
export function taskQuery(f: { operator_id: string; status: string; from: string; to: string }, cursor?: string | null): string {
  const q = new URLSearchParams({ limit: '20' });
  if (f.operator_id.trim()) q.set('operator_id', f.operator_id.trim());
  if (f.status) q.set('status', f.status);
  // A date input is a local day: from its midnight (inclusive) to the next day's (exclusive).
  if (f.from) q.set('created_after', new Date(`${f.from}T00:00:00`).toISOString());
  if (f.to) {
    const end = new Date(`${f.to}T00:00:00`);
    end.setDate(end.getDate() + 1);
    q.set('created_before', end.toISOString());
  }
  if (cursor) q.set('cursor', cursor);
  return q.toString();
}
