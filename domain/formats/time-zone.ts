// A task's `time_zone`: a date-time the source wrote WITH a zone (`Z` or an offset) names an
// instant; CSV and xlsx show it as the wall-clock time of that instant in the task's zone, so a
// reader in Shanghai sees 08:00 where the source said 00:00Z. Text without a zone is a wall-clock
// time already and stays as written; JSON Lines and Parquet keep the instant (docs/formats.md).
//
// The zone's offset comes from Intl (the tz database Node ships), asked once per UTC hour and kept:
// a value costs a parse of its digits in place and a Map lookup. An hour whose two ends differ in offset (a DST change, or
// a historical change at an odd minute) is never cached: each of its values asks Intl for itself.
import { DomainError } from '../errors.js';
import { civilDays, digits, isCalendarDay } from './digits.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Hours of offsets one zone keeps (a few years of hourly values); then it starts over. */
const CACHE_HOURS = 50_000;
/** 0001-01-01 and 10000-01-01 as milliseconds since 1970. */
const FIRST_MS = civilDays(1, 1, 1) * DAY_MS;
const END_MS = civilDays(10_000, 1, 1) * DAY_MS;

const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));

/** Where parseZoned found the fraction (from its dot; 0, 0: none): fields, so a parse allocates nothing. */
let fracFrom = 0;
let fracTo = 0;

/**
 * `yyyy-mm-dd[T ]hh:mm[:ss[.f{1,9}]]` then `Z` or `±hh[[:]mm]` (a zone is required), read without a
 * regex (a million values an export): its UTC milliseconds (the fraction's place in fracFrom,
 * fracTo), or NaN.
 */
function parseZoned(s: string): number {
  const c10 = s.charCodeAt(10);
  if (s.charCodeAt(7) !== 45 || (c10 !== 84 && c10 !== 116 && c10 !== 32) || s.charCodeAt(13) !== 58) return Number.NaN;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  const h = digits(s, 11, 2);
  const mi = digits(s, 14, 2);
  if (!isCalendarDay(y, mo, d) || h < 0 || h > 23 || mi < 0 || mi > 59) return Number.NaN;
  let at = 16;
  let sec = 0;
  fracFrom = fracTo = 0;
  if (s.charCodeAt(at) === 58) {
    sec = digits(s, 17, 2);
    if (sec < 0 || sec > 59) return Number.NaN;
    at = 19;
    if (s.charCodeAt(at) === 46) {
      const from = at++;
      while (at < s.length && s.charCodeAt(at) >= 48 && s.charCodeAt(at) <= 57) at++;
      if (at === from + 1 || at > from + 10) return Number.NaN;
      fracFrom = from;
      fracTo = at;
    }
  }
  const offset = zoneOffset(s, at);
  return offset === null ? Number.NaN : civilDays(y, mo, d) * DAY_MS + (h * 3600 + mi * 60 + sec) * 1000 - offset;
}

/** The zone suffix at `at` to the end (Z, ±hh, ±hhmm, ±hh:mm) in milliseconds east of UTC, or null. */
function zoneOffset(s: string, at: number): number | null {
  const c = s.charCodeAt(at);
  if (c === 90 || c === 122) return at + 1 === s.length ? 0 : null;
  if (c !== 43 && c !== 45) return null;
  const rest = s.length - at - 1;
  const colon = rest === 5 && s.charCodeAt(at + 3) === 58;
  if (rest !== 2 && rest !== 4 && !colon) return null;
  const oh = digits(s, at + 1, 2);
  const om = rest === 2 ? 0 : digits(s, at + (colon ? 4 : 3), 2);
  if (oh < 0 || oh > 23 || om < 0 || om > 59) return null;
  return (c === 45 ? -1 : 1) * (oh * 60 + om) * 60_000;
}

/** The zone's canonical name, or null when Intl does not know it. */
export function canonicalZone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** `yyyy-mm-dd` of days since 1970-01-01 (proleptic Gregorian; Hinnant's civil_from_days). */
function dateText(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, '0')}-${TWO[m]}-${TWO[d]}`;
}

export class TimeZone {
  private readonly format: Intl.DateTimeFormat;
  private readonly offsets = new Map<number, number>();
  /** The last wall-clock day written and its text: rows of an export mostly share their day. */
  private day = Number.NaN;
  private dayText = '';

  constructor(readonly name: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** The zone's offset from UTC at an instant, in milliseconds (whole seconds, as the tz database's). */
  private exactOffset(ms: number): number {
    const at = Math.floor(ms / 1000) * 1000;
    const f: Record<string, string> = {};
    for (const p of this.format.formatToParts(at)) f[p.type] = p.value;
    const year = f.era === 'BC' || f.era === 'B' ? 1 - Number(f.year) : Number(f.year);
    const wall = civilDays(year, Number(f.month), Number(f.day)) * DAY_MS + (Number(f.hour) * 3600 + Number(f.minute) * 60 + Number(f.second)) * 1000;
    return wall - at;
  }

  offsetAt(ms: number): number {
    const hour = Math.floor(ms / HOUR_MS);
    const known = this.offsets.get(hour);
    if (known !== undefined) return known;
    const start = hour * HOUR_MS;
    const first = this.exactOffset(start);
    // A change inside this hour: no single offset holds for it.
    if (this.exactOffset(start + HOUR_MS - 1) !== first) return this.exactOffset(ms);
    if (this.offsets.size >= CACHE_HOURS) this.offsets.clear();
    this.offsets.set(hour, first);
    return first;
  }

  /**
   * A date-time with a zone as `yyyy-mm-dd hh:mm:ss[.fraction]` in this zone (the fraction as the
   * source wrote it); null for any other text, which the caller writes unchanged.
   */
  wallClock(s: string): string | null {
    if (s.length < 17 || s.length > 35 || s.charCodeAt(4) !== 45) return null;
    const utc = parseZoned(s);
    if (Number.isNaN(utc)) return null;
    const wall = utc + this.offsetAt(utc);
    // Outside the years 0001-9999 the text would not read as a date: leave it as the source wrote it.
    if (wall < FIRST_MS || wall >= END_MS) return null;
    const days = Math.floor(wall / DAY_MS);
    if (days !== this.day) {
      this.day = days;
      this.dayText = dateText(days);
    }
    const secs = Math.floor((wall - days * DAY_MS) / 1000);
    const time = `${TWO[Math.floor(secs / 3600)]}:${TWO[Math.floor(secs / 60) % 60]}:${TWO[secs % 60]}`;
    return fracTo ? `${this.dayText} ${time}${s.slice(fracFrom, fracTo)}` : `${this.dayText} ${time}`;
  }

  /** A value with its zoned date-time text moved to this zone; any other value unchanged. */
  shift(v: unknown): unknown {
    return typeof v === 'string' ? (this.wallClock(v) ?? v) : v;
  }
}

const zones = new Map<string, TimeZone>();

/** The converter of a task's time_zone (absent: none); one per zone, its offsets kept between pages. */
export function timeZone(name: string | undefined | null): TimeZone | null {
  if (!name) return null;
  let z = zones.get(name);
  if (!z) {
    // The API took only zones Intl knows; a stored one this Node no longer knows fails the task, said plainly.
    if (!canonicalZone(name)) throw new DomainError('render_failed', `time_zone ${JSON.stringify(name)} is not a time zone this server knows`);
    if (zones.size >= 64) zones.clear();
    z = new TimeZone(name);
    zones.set(name, z);
  }
  return z;
}
