// Placeholders in a schedule's task body, so each run exports its own period: `{{date}}` and its
// kin in file_name and in the query of source_url (and of each sheet's), filled with the run's due
// time as a calendar date in the schedule's time zone; `{{interval_start}}` / `{{interval_end}}`
// with its window (domain/schedules/windows.ts), as ISO 8601 times with the zone's offset. Nothing
// else is touched: a placeholder elsewhere would be sent as it stands, so it is refused when the
// schedule is created.

import { sanitizeFileName } from '../formats/file-name.js';

const NAMES = ['date', 'yesterday', 'month', 'last_month', 'year', 'interval_start', 'interval_end'] as const;
type Name = (typeof NAMES)[number];
const PLACEHOLDER = /\{\{\s*([a-z_]+)\s*\}\}/g;

/** Whether the time zone is one Intl (ICU's IANA database) knows. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock fields of `at` in `timeZone` (hour 0–23). */
function wallClock(at: Date, timeZone: string) {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(at);
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return { y: get('year'), m: get('month'), d: get('day'), h: get('hour'), mi: get('minute'), s: get('second') };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
/** A date's parts, normalised (day 0 is the last of the month before; month 0 December of the year before). */
const ymd = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);

/**
 * `at` as an ISO 8601 local time in `timeZone` with that moment's offset (2026-11-24T01:00:00+08:00),
 * or in the basic format (20261124T010000+0800) for a file name, which may not carry ":".
 */
export function zonedIso(at: Date, timeZone: string, basic = false): string {
  const w = wallClock(at, timeZone);
  const offsetMin = Math.round((Date.UTC(w.y, w.m - 1, w.d, w.h, w.mi, w.s) - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  const [oh, om] = [pad(Math.floor(Math.abs(offsetMin) / 60)), pad(Math.abs(offsetMin) % 60)];
  const [dash, colon] = basic ? ['', ''] : ['-', ':'];
  const date = [pad(w.y, 4), pad(w.m), pad(w.d)].join(dash);
  return `${date}T${[pad(w.h), pad(w.mi), pad(w.s)].join(colon)}${sign}${oh}${colon}${om}`;
}

/** A run's window: from the schedule's previous due time to this run's (windows.ts). */
export interface Window {
  start: Date;
  end: Date;
}

/** Each placeholder's value for a run due `at` with its window (none given: an empty one at `at`), in `timeZone`. */
export function values(at: Date, timeZone: string, window?: Window, basic = false): Record<Name, string> {
  const { y, m, d } = wallClock(at, timeZone);
  return {
    date: `${y}-${pad(m)}-${pad(d)}`,
    yesterday: ymd(y, m, d - 1),
    month: `${y}-${pad(m)}`,
    last_month: ymd(y, m - 1, 1).slice(0, 7),
    year: String(y),
    interval_start: zonedIso(window?.start ?? at, timeZone, basic),
    interval_end: zonedIso(window?.end ?? at, timeZone, basic),
  };
}

const fill = (text: string, v: Record<Name, string>, encode: (s: string) => string = (s) => s) =>
  text.replace(PLACEHOLDER, (all, name: string) => (NAMES.includes(name as Name) ? encode(v[name as Name]) : all));

/**
 * source_url with the placeholders of its query filled (the rest of the URL is left as it is),
 * each value percent-encoded: an offset's "+" would otherwise reach the source as a space.
 */
function fillQuery(url: string, v: Record<Name, string>): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const end = hash < 0 ? url.length : hash;
  return url.slice(0, q) + fill(url.slice(q, end), v, encodeURIComponent) + url.slice(end);
}

interface Body {
  source_url: string;
  file_name?: string | undefined;
  sheets?: Array<{ source_url: string }> | undefined;
}

/** The task body of one run: placeholders filled for a run due `at` whose window is `window`. */
export function fillBody<T extends Body>(body: T, at: Date, timeZone: string, window?: Window): T {
  const v = values(at, timeZone, window);
  return {
    ...body,
    source_url: fillQuery(body.source_url, v),
    // A filled placeholder can be longer than itself ({{date}} → 2026-11-24): clipped again.
    ...(body.file_name !== undefined ? { file_name: sanitizeFileName(fill(body.file_name, values(at, timeZone, window, true))) } : {}),
    ...(body.sheets ? { sheets: body.sheets.map((s) => ({ ...s, source_url: fillQuery(s.source_url, v) })) } : {}),
  };
}

/**
 * Whether the body has {{interval_start}} or {{interval_end}}, so that a run must ask Temporal for
 * its window (domain/schedules/runs.ts); a literal such as `?interval_minutes=5` is no placeholder.
 */
export function usesWindow(body: Body): boolean {
  const texts = [body.source_url, body.file_name ?? '', ...(body.sheets ?? []).map((s) => s.source_url)];
  return texts.some((text) => [...text.matchAll(PLACEHOLDER)].some((m) => m[1] === 'interval_start' || m[1] === 'interval_end'));
}

/** Why a field's placeholders cannot be filled, or null: an unknown name, or one outside the query. */
export function placeholderProblem(text: string, where: 'file_name' | 'query'): string | null {
  const q = text.indexOf('?');
  const hash = text.indexOf('#');
  for (const m of text.matchAll(PLACEHOLDER)) {
    if (!NAMES.includes(m[1] as Name)) return `unknown placeholder ${m[0]}; known: ${NAMES.map((n) => `{{${n}}}`).join(', ')}`;
    const inQuery = q >= 0 && m.index > q && (hash < 0 || m.index < hash);
    if (where === 'query' && !inQuery) return `${m[0]} may appear only in the query string (after "?")`;
  }
  return null;
}
