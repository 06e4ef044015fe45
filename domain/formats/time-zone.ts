// A task's `time_zone`: a date-time the source wrote WITH a zone (`Z` or an offset) names an
// instant; CSV and xlsx show it as the wall-clock time of that instant in the task's zone, so a
// reader in Shanghai sees 08:00 where the source said 00:00Z. Text without a zone is a wall-clock
// time already and stays as written; JSON Lines and Parquet keep the instant (docs/formats.md).
//
// The zone's offset comes from Intl (the tz database Node ships), asked once per UTC hour and kept:
// a value costs a regex and a Map lookup. An hour whose two ends differ in offset (a DST change, or
// a historical change at an odd minute) is never cached: each of its values asks Intl for itself.
import { civilDays } from './parquet/dates.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Hours of offsets one zone keeps (a few years of hourly values); then it starts over. */
const CACHE_HOURS = 50_000;

// yyyy-mm-dd[T ]hh:mm[:ss[.fraction]] then Z or ±hh[[:]mm]: a zone is required.
const ZONED = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const leap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/** The zone's canonical name, or null when Intl does not know it. */
export function canonicalZone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** y-m-d hh:mm:ss of milliseconds since 1970 (proleptic Gregorian; Hinnant's civil_from_days). */
function wallText(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
  const secs = Math.floor((ms - days * DAY_MS) / 1000);
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${pad(y, 4)}-${pad(m)}-${pad(d)} ${pad(Math.floor(secs / 3600))}:${pad(Math.floor(secs / 60) % 60)}:${pad(secs % 60)}`;
}

export class TimeZone {
  private readonly format: Intl.DateTimeFormat;
  private readonly offsets = new Map<number, number>();

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
    const m = ZONED.exec(s);
    if (!m) return null;
    const [y, mo, d, h, mi] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])];
    const sec = m[6] === undefined ? 0 : Number(m[6]);
    if (mo < 1 || mo > 12 || d < 1 || d > (mo === 2 && leap(y) ? 29 : MONTH_DAYS[mo - 1]!) || h > 23 || mi > 59 || sec > 59) return null;
    let utc = civilDays(y, mo, d) * DAY_MS + (h * 3600 + mi * 60 + sec) * 1000;
    if (m[9]) {
      const [oh, om] = [Number(m[10]), m[11] === undefined ? 0 : Number(m[11])];
      if (oh > 23 || om > 59) return null;
      utc -= (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
    }
    const wall = utc + this.offsetAt(utc);
    // Outside the years 0001-9999 the text would not read as a date: leave it as the source wrote it.
    if (wall < civilDays(1, 1, 1) * DAY_MS || wall >= civilDays(10_000, 1, 1) * DAY_MS) return null;
    return wallText(wall) + (m[7] ?? '');
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
    if (zones.size >= 64) zones.clear();
    z = new TimeZone(name);
    zones.set(name, z);
  }
  return z;
}
