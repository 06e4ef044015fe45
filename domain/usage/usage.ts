// Reading the kept usage (docs/usage.md): a project's days, the admin's totals across projects,
// and the /metrics gauges. The database keeps usage_days and usage_stored exact as tasks and
// e-mails change (db/functions/dc_usage_apply.sql, docs/adr/0049-usage-and-quotas.md), so each
// read is a few rows per project and day asked, whatever the history.
import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../db/client.js';
import { DomainError } from '../errors.js';

/** The longest range one request may ask for, in days (both ends included). */
export const MAX_USAGE_DAYS = 366;

const USAGE_FIELDS = ['tasks', 'succeeded', 'failed', 'rows', 'bytes', 'deliveries', 'emails'] as const;
type Figures = Record<(typeof USAGE_FIELDS)[number], number>;
export type UsageDay = { date: string } & Figures;

const DAY_MS = 86_400_000;
const dayMs = (d: string): number => Date.parse(`${d}T00:00:00Z`);
const dateOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const zeros = (): Figures => Object.fromEntries(USAGE_FIELDS.map((f) => [f, 0])) as Figures;
/** bigint sums come as strings from the drivers. */
const figures = (r: Record<string, unknown>): Figures => Object.fromEntries(USAGE_FIELDS.map((f) => [f, Number(r[f] ?? 0)])) as Figures;

/** Today's UTC date, the day usage is counted on now. */
export const utcToday = (now = Date.now()): string => dateOf(now);

// Dates the service can have counted: from its own era to the last year four digits write (a year
// 0 would reach Postgres, which has none, as an error instead of a 422).
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(9999, 11, 31);

function checkDate(field: 'from' | 'to', value: string): number {
  const ms = dayMs(value);
  if (Number.isNaN(ms) || dateOf(ms) !== value) throw DomainError.invalid(field, 'must be a date YYYY-MM-DD');
  if (ms < EARLIEST || ms > LATEST) throw DomainError.invalid(field, 'must be a date from 2000-01-01 to 9999-12-31');
  return ms;
}

/** from..to as asked: real dates, from not after to, at most MAX_USAGE_DAYS days. */
function checkRange(from: string, to: string): { from: string; to: string; days: number } {
  const a = checkDate('from', from);
  const b = checkDate('to', to);
  if (b < a) throw DomainError.invalid('to', 'must not be before from');
  const days = (b - a) / DAY_MS + 1;
  if (days > MAX_USAGE_DAYS) throw DomainError.invalid('to', `the range may span at most ${MAX_USAGE_DAYS} days (asked: ${days})`);
  return { from, to, days };
}

const sums = sql.raw(USAGE_FIELDS.map((f) => `coalesce(sum(u.${f}), 0) as ${f}`).join(', '));

/** One project's use: every day of the range, oldest first (a day with no use holds zeros), and its stored bytes now. */
export async function projectUsage(db: Db, projectId: string, range: { from: string; to: string }): Promise<{ days: UsageDay[]; stored_bytes: number }> {
  const { from, to, days } = checkRange(range.from, range.to);
  const rows = rowsOf<Record<string, unknown> & { day: string | Date }>(
    await db.execute(sql`select u.day::text as day, ${sums} from usage_days u
      where u.project_id = ${projectId} and u.day between ${from}::date and ${to}::date group by u.day`),
  );
  const byDay = new Map(rows.map((r) => [String(r.day).slice(0, 10), figures(r)]));
  const out: UsageDay[] = [];
  for (let i = 0; i < days; i++) {
    const date = dateOf(dayMs(from) + i * DAY_MS);
    out.push({ date, ...(byDay.get(date) ?? zeros()) });
  }
  return { days: out, stored_bytes: await storedBytes(db, projectId) };
}

async function storedBytes(db: Db, projectId: string): Promise<number> {
  const [row] = rowsOf<{ bytes: string | number }>(await db.execute(sql`select bytes from usage_stored where project_id = ${projectId}`));
  return Number(row?.bytes ?? 0);
}

type ProjectTotals = { project_id: string; stored_bytes: number } & Figures;

const encodeAfter = (projectId: string): string => Buffer.from(JSON.stringify(['usage', projectId])).toString('base64url');
const ID = /^[a-z]{2,8}_[A-Za-z0-9_-]{1,64}$/;

function decodeAfter(cursor: string): string {
  try {
    const [tag, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (tag !== 'usage' || typeof id !== 'string' || !ID.test(id)) throw new Error();
    return id;
  } catch {
    throw DomainError.invalid('cursor', 'invalid cursor', 'cursor is not one this API returned');
  }
}

interface AdminUsageQuery {
  from: string;
  to: string;
  project_id?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/**
 * Per project, the totals of the range and the stored bytes now: the projects with any use in the
 * range or any file stored, by project id, a page at a time.
 */
export async function adminUsage(db: Db, q: AdminUsageQuery): Promise<{ items: ProjectTotals[]; next_cursor: string | null }> {
  const { from, to } = checkRange(q.from, q.to);
  const after = q.cursor ? decodeAfter(q.cursor) : '';
  const only = q.project_id ? sql`and p.project_id = ${q.project_id}` : sql``;
  const rows = rowsOf<Record<string, unknown> & { project_id: string; stored_bytes: string | number }>(
    await db.execute(sql`select p.project_id, ${sql.raw(USAGE_FIELDS.map((f) => `coalesce(d.${f}, 0) as ${f}`).join(', '))}, coalesce(s.bytes, 0) as stored_bytes
      from (select u.project_id from usage_days u where u.day between ${from}::date and ${to}::date
            union select st.project_id from usage_stored st where st.bytes <> 0) p
      left join (select u.project_id, ${sums} from usage_days u where u.day between ${from}::date and ${to}::date group by u.project_id) d on d.project_id = p.project_id
      left join usage_stored s on s.project_id = p.project_id
      where p.project_id > ${after} ${only}
      order by p.project_id limit ${q.limit + 1}`),
  );
  const page = rows.slice(0, q.limit).map((r) => ({ project_id: r.project_id, ...figures(r), stored_bytes: Number(r.stored_bytes) }));
  return { items: page, next_cursor: rows.length > q.limit ? encodeAfter(page[page.length - 1]!.project_id) : null };
}

/** For /metrics: per project, the bytes stored now and today's (UTC) rows and bytes; projects at zero are left out. */
export async function usageGauges(db: Db): Promise<{ stored: Record<string, number>; rowsToday: Record<string, number>; bytesToday: Record<string, number> }> {
  const stored = rowsOf<{ project_id: string; bytes: string | number }>(await db.execute(sql`select project_id, bytes from usage_stored where bytes <> 0`));
  const today = rowsOf<{ project_id: string; rows: string | number; bytes: string | number }>(
    await db.execute(sql`select project_id, rows, bytes from usage_days where day = ${utcToday()}::date and (rows <> 0 or bytes <> 0)`),
  );
  return {
    stored: Object.fromEntries(stored.map((r) => [r.project_id, Number(r.bytes)])),
    rowsToday: Object.fromEntries(today.map((r) => [r.project_id, Number(r.rows)])),
    bytesToday: Object.fromEntries(today.map((r) => [r.project_id, Number(r.bytes)])),
  };
}
