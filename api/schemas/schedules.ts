// POST /v1/schedules (docs/api.md#post-v1schedules): a task's body plus when it runs: `cron` with `timezone`, or
// `every`. The cron expression itself is Temporal's to judge (domain/schedules/schedules.ts); what
// can be told here is told here, each problem naming its field.
import { z } from '@hono/zod-openapi';
import { isTimeZone, placeholderProblem } from '../../domain/schedules/placeholders.js';
import type { ScheduleInput } from '../../domain/schedules/schedules.js';
import { OVERLAP_POLICIES } from '../../model/schedule.js';
import { submitFields, withSheets } from './tasks.js';
import { requiredChars } from './chars.js';

const UNITS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 } as const;
const EVERY = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** "1h30m" → 5,400,000; null when it is not such a duration. */
export function parseEvery(text: string): number | null {
  const m = EVERY.exec(text.trim());
  if (!m || !text.trim()) return null;
  return [UNITS.d, UNITS.h, UNITS.m, UNITS.s].reduce((ms, unit, i) => ms + Number(m[i + 1] ?? 0) * unit, 0);
}

/** A year field of a cron expression: 2027, 2026-2028, 2026-2030/2, 2026,2028. */
const YEAR_FIELD = /^\d{4}(?:-\d{4})?(?:\/\d+)?(?:,\d{4}(?:-\d{4})?(?:\/\d+)?)*$/;

/**
 * Temporal reads a cron of 6 fields as minute … day-of-week **year**, where most cron dialects read
 * seconds first: "*\/5 * * * * *" fires every 5 minutes, not every 5 seconds (checked on the dev
 * server; docs/schedules.md#cron-fields). A sixth field that is not a year is refused as ambiguous;
 * seconds take the 7-field form.
 */
function cronProblem(cron: string): string | null {
  const fields = cron.split('#')[0]!.trim().split(/\s+/);
  if (fields.length !== 6 || YEAR_FIELD.test(fields[5]!)) return null;
  return 'has 6 fields, which Temporal reads as minute hour day-of-month month day-of-week year (not seconds first); write 5 fields, or 7 with seconds first and a year last (e.g. "*/5 * * * * * *": every 5 seconds)';
}

const fields = submitFields.extend({
  cron: requiredChars(200)
    .openapi({ description: 'Read by Temporal: 5 fields (minute hour day-of-month month day-of-week), or 7 (second minute hour day-of-month month day-of-week year); 6 only with a year last. Names, ranges, steps, @daily.' })
    .optional(),
  every: z.string().max(40).openapi({ pattern: `^(?=\\d)${EVERY.source.slice(1)}`, description: 'A duration such as 15m, 1h, 1h30m or 1d: at least one minute, at most 366 days.' }).optional(),
  timezone: requiredChars(64).default('UTC'),
  overlap: z.enum(OVERLAP_POLICIES).default('skip'),
  pause_after_failures: z.number().int().min(1).max(100).default(3),
});

/** What the document can state of the rules below: exactly one of cron and every. */
const whenStated = { oneOf: [{ required: ['cron'] }, { required: ['every'] }] };

export const scheduleSchema = withSheets(fields, whenStated)
  .superRefine((b, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (b.cron === undefined && b.every === undefined) issue(['cron'], 'give cron (with timezone) or every');
    if (b.cron !== undefined && b.every !== undefined) issue(['every'], 'give cron or every, not both');
    if (b.cron && /^(CRON_TZ|TZ)=|@every/i.test(b.cron)) issue(['cron'], 'give the time zone in timezone and an interval in every, not in the cron expression');
    const ambiguous = b.cron ? cronProblem(b.cron) : null;
    if (ambiguous) issue(['cron'], ambiguous);
    if (b.every !== undefined) {
      const ms = parseEvery(b.every);
      if (ms === null) issue(['every'], 'must be a duration such as 15m, 1h, 1h30m or 1d');
      else if (ms < UNITS.m) issue(['every'], 'must be at least one minute');
      else if (ms > 366 * UNITS.d) issue(['every'], 'must be at most 366 days');
    }
    if (!isTimeZone(b.timezone)) issue(['timezone'], `unknown time zone "${b.timezone}" (an IANA name such as Asia/Shanghai, or UTC)`);
    const problems: Array<[(string | number)[], string | null]> = [
      [['file_name'], b.file_name === undefined ? null : placeholderProblem(b.file_name, 'file_name')],
      ...(b.sheets
        ? b.sheets.map((s, i): [(string | number)[], string | null] => [['sheets', i, 'source_url'], placeholderProblem(s.source_url, 'query')])
        : [[['source_url'], placeholderProblem(b.source_url, 'query')] as [(string | number)[], string | null]]),
    ];
    for (const [path, problem] of problems) if (problem) issue(path, problem);
  })
  .transform(({ cron, every, timezone, overlap, pause_after_failures, ...task }): ScheduleInput => ({
    cron,
    every: every === undefined ? undefined : { text: every.trim(), ms: parseEvery(every)! },
    timezone,
    overlap,
    pause_after_failures,
    task,
  }));

export const scheduleListSchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});

/** pause / resume: an optional note, shown on the schedule (and in the Temporal UI). */
export const noteSchema = z.strictObject({ note: requiredChars(500).optional() });

/** POST /v1/schedules/:id/backfill: the runs due after start up to and including end (ADR 0034). */
export const backfillSchema = z
  .strictObject({
    start: z.iso.datetime({ offset: true }).openapi({ description: 'ISO 8601 with an offset; a run due exactly at start is not made (its window lies before start).' }),
    end: z.iso.datetime({ offset: true }).openapi({ description: 'ISO 8601 with an offset, not in the future; a run due exactly at end is made.' }),
  })
  .superRefine((b, ctx) => {
    const [start, end] = [Date.parse(b.start), Date.parse(b.end)];
    if (start < 0) ctx.addIssue({ code: 'custom', path: ['start'], message: 'must not be before 1970-01-01T00:00:00Z' });
    if (end <= start) ctx.addIssue({ code: 'custom', path: ['end'], message: 'must be after start' });
    // A window that has not ended yet has no data to export yet; its run comes on time.
    if (end > Date.now()) ctx.addIssue({ code: 'custom', path: ['end'], message: 'must not be in the future: a backfill runs intervals that have ended' });
  })
  .transform((b) => ({ start: new Date(b.start), end: new Date(b.end) }));
