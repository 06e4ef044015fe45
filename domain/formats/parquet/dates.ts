// Dates and date-times as Parquet stores them (days, milliseconds since 1970-01-01), computed from
// the digits and never through Date: Date.UTC and new Date(y, …) read a year 0–99 as 1900–1999 and
// roll an impossible field over (10:75 becomes 11:15, 30 February 2 March). A text that names no
// real moment of the years 0001–9999 (proleptic Gregorian calendar) is null here: the caller
// refuses it or keeps it as text, so no value is ever moved.

import { civilDays, isCalendarDay } from '../digits.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:?\d{2})?$/;
const DAY_MS = 86_400_000;
/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: what readers (pyarrow's datetime too) can show. */
const FIRST_MS = -62_135_596_800_000;
const LAST_MS = 253_402_300_799_999;

const realDay = (y: number, m: number, d: number) => y >= 1 && y <= 9999 && isCalendarDay(y, m, d);

export interface Moment {
  /** Days since 1970-01-01 of the date as written (its wall-clock date). */
  days: number;
  /** Milliseconds since 1970-01-01T00:00: the wall clock as written, or the UTC instant when it names a zone. */
  ms: number;
  /** A date alone (no time), and whether it named a zone (Z or an offset). */
  dateOnly: boolean;
  zoned: boolean;
}

/** A `yyyy-mm-dd` or `yyyy-mm-dd[T ]hh:mm[:ss[.sss]][Z|±hh[:]mm]` text that names a real moment, else null. */
export function parseMoment(s: string): Moment | null {
  // Most text is no date: two character looks rule it out before a regex runs.
  if (s.length < 10 || s.length > 29 || s.charCodeAt(4) !== 45 /* - */) return null;
  const m = s.length === 10 ? DATE.exec(s) : DATETIME.exec(s);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!realDay(y, mo, d)) return null;
  const days = civilDays(y, mo, d);
  if (m.length === 4) return { days, ms: days * DAY_MS, dateOnly: true, zoned: false };
  const [h, mi, sec] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  // 24:00, minute 60 and a leap second (:60) name no moment a Parquet timestamp can hold unmoved.
  if (h > 23 || mi > 59 || sec > 59) return null;
  const frac = m[7] ? Number(m[7].padEnd(3, '0')) : 0;
  let ms = days * DAY_MS + ((h * 60 + mi) * 60 + sec) * 1000 + frac;
  const zone = m[8];
  if (zone && zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const [oh, om] = [Number(digits.slice(0, 2)), Number(digits.slice(2))];
    if (oh > 23 || om > 59) return null;
    ms -= (zone[0] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  // An offset can carry 0001-01-01 or 9999-12-31 outside the years readers hold.
  if (ms < FIRST_MS || ms > LAST_MS) return null;
  return { days, ms, dateOnly: false, zoned: zone !== undefined };
}

/** What momentAt read last (one object reused: the render reads a million of these). */
export const readMoment: Moment = { days: 0, ms: 0, dateOnly: true, zoned: false };

const digit = (b: Uint8Array, at: number) => {
  const c = b[at]! - 48;
  return c >= 0 && c <= 9 ? c : -1;
};
/** Two (or four) digits at `at` as a number, -1 when one is not a digit. */
const two = (b: Uint8Array, at: number) => {
  const x = digit(b, at);
  const y = digit(b, at + 1);
  return x < 0 || y < 0 ? -1 : x * 10 + y;
};

/**
 * parseMoment of the text that bytes [from, to) spell (a JSON string's bytes, no escapes), read
 * from the bytes without making a string; the result in `readMoment`. Same grammar, same checks,
 * same numbers (test/unit/parquet-scan.test.ts holds the two to each other).
 */
export function momentAt(b: Uint8Array, from: number, to: number): boolean {
  const n = to - from;
  if (n < 10 || n > 29 || b[from + 4] !== 45) return false;
  const hi = two(b, from);
  const lo = two(b, from + 2);
  const mo = two(b, from + 5);
  const d = two(b, from + 8);
  if (hi < 0 || lo < 0 || mo < 0 || d < 0 || b[from + 7] !== 45) return false;
  const y = hi * 100 + lo;
  if (n === 10) {
    if (!realDay(y, mo, d)) return false;
    readMoment.days = civilDays(y, mo, d);
    readMoment.ms = readMoment.days * DAY_MS;
    readMoment.dateOnly = true;
    readMoment.zoned = false;
    return true;
  }
  return timeAt(b, from, to, y, mo, d);
}

/** The time and zone after a date (yyyy-mm-dd then T or a space): DATETIME's rest, byte by byte. */
function timeAt(b: Uint8Array, from: number, to: number, y: number, mo: number, d: number): boolean {
  const sep = b[from + 10];
  if (to - from < 16 || (sep !== 84 && sep !== 32) || b[from + 13] !== 58) return false;
  const h = two(b, from + 11);
  const mi = two(b, from + 14);
  if (h < 0 || mi < 0) return false;
  let at = from + 16;
  let sec = 0;
  let frac = 0;
  if (b[at] === 58 && at < to) {
    sec = two(b, at + 1);
    if (sec < 0 || at + 3 > to) return false;
    at += 3;
    if (b[at] === 46 && at < to) {
      let k = 0;
      for (at++; k < 3 && at < to && digit(b, at) >= 0; k++, at++) frac = frac * 10 + digit(b, at);
      if (k === 0) return false;
      frac *= k === 1 ? 100 : k === 2 ? 10 : 1;
    }
  }
  let offset = 0;
  const zone = at < to ? b[at] : undefined;
  if (zone === 90) at++;
  else if (zone === 43 || zone === 45) {
    const oh = two(b, at + 1);
    const colon = b[at + 3] === 58 ? 1 : 0;
    const om = two(b, at + 3 + colon);
    if (oh < 0 || om < 0 || at + 5 + colon > to) return false;
    if (oh > 23 || om > 59) return false;
    offset = (zone === 45 ? -1 : 1) * (oh * 60 + om) * 60_000;
    at += 5 + colon;
  } else if (zone !== undefined) return false;
  if (at !== to || !realDay(y, mo, d) || h > 23 || mi > 59 || sec > 59) return false;
  const days = civilDays(y, mo, d);
  const ms = days * DAY_MS + ((h * 60 + mi) * 60 + sec) * 1000 + frac - offset;
  if (ms < FIRST_MS || ms > LAST_MS) return false;
  readMoment.days = days;
  readMoment.ms = ms;
  readMoment.dateOnly = false;
  readMoment.zoned = zone !== undefined;
  return true;
}
