// Source values → typed cells. Numbers become real numbers only when that loses nothing: long ids,
// leading zeros and 16+ significant digits stay text. Nothing ever becomes a formula.
import type { CellType } from './schema.js';
import { digits, isCalendarDay } from '../digits.js';

export type Cell = { t: 'n'; v: number } | { t: 's'; v: string } | { t: 'b'; v: boolean } | null;

/** Excel's cell text limit; longer text is cut there (Excel would refuse the file otherwise). */
export const MAX_CELL_TEXT = 32_767;

export const DEFAULT_FORMATS: Partial<Record<CellType, string>> = {
  integer: '0',
  money: '#,##0.00',
  decimal: '#,##0.00',
  percent: '0.00%',
  date: 'yyyy-mm-dd',
  datetime: 'yyyy-mm-dd hh:mm:ss',
  string: '@',
};

const PLAIN = /^[+-]?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d{1,3})?$/;
const GROUPED = /^[+-]?[1-9]\d{0,2}(,\d{3})+(\.\d+)?$/;

/** Text that is exactly a number Excel can hold without losing a digit; otherwise null. */
export function numericText(s: string): number | null {
  let t = s.trim();
  if (GROUPED.test(t)) t = t.replace(/,/g, '');
  else if (!PLAIN.test(t)) return null;
  const mantissa = t.replace(/^[+-]/, '').replace(/[eE].*$/, '').replace('.', '').replace(/^0+/, '');
  if (mantissa.length > 15) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

const DAY_MS = 86_400_000;
const EXCEL_EPOCH = Date.UTC(1899, 11, 30);
// Before 1900-03-01 Excel's serials are off by its 1900 leap-year bug; such dates stay text.
const FIRST_SAFE = Date.UTC(1900, 2, 1);
const DATE = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/;

/** Wall-clock milliseconds as Excel's serial date. */
const serial = (ms: number) => (ms - EXCEL_EPOCH) / DAY_MS;

/** 'yyyy-mm-dd' and 'yyyy-mm-dd hh:mm:ss' without a regex or a Date: most date cells, a million times. */
function fastDate(s: string): number | null | undefined {
  if ((s.length !== 10 && s.length !== 19) || s[4] !== '-' || s[7] !== '-') return undefined;
  const [y, mo, d] = [digits(s, 0, 4), digits(s, 5, 2), digits(s, 8, 2)];
  let secs = 0;
  if (s.length === 19) {
    if ((s[10] !== ' ' && s[10] !== 'T') || s[13] !== ':' || s[16] !== ':') return undefined;
    const [h, mi, se] = [digits(s, 11, 2), digits(s, 14, 2), digits(s, 17, 2)];
    if (h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59) return null;
    secs = h * 3600 + mi * 60 + se;
  }
  if (!isCalendarDay(y, mo, d)) return null;
  const ms = Date.UTC(y, mo - 1, d);
  return ms < FIRST_SAFE ? null : serial(ms) + secs / 86_400;
}

/**
 * A date as written: '2026-11-03', '2026/11/03 08:30', '2026-11-03T08:30:00Z'. The digits are
 * taken as the wall-clock time to show; a zone suffix is accepted and not converted.
 */
export function dateSerial(s: string): number | null {
  const fast = fastDate(s);
  if (fast !== undefined) return fast;
  const m = DATE.exec(s.trim());
  if (!m) return null;
  const [y, mo, d, h = '0', mi = '0', se = '0', frac = '0'] = m.slice(1) as string[];
  const ms = Date.UTC(+y!, +mo! - 1, +d!, +h, +mi, +se, Math.round(Number(`0.${frac}`) * 1000));
  const back = new Date(ms);
  if (back.getUTCMonth() !== +mo! - 1 || back.getUTCDate() !== +d! || +h > 23 || +mi > 59 || +se > 59) return null;
  return ms < FIRST_SAFE ? null : serial(ms);
}

/** Epoch numbers: milliseconds above 1e11, seconds above 1e8, otherwise already a serial. */
function numberAsDate(n: number): number {
  if (Math.abs(n) >= 1e11) return serial(n);
  if (Math.abs(n) >= 1e8) return serial(n * 1000);
  return n;
}

const text = (v: unknown): string => {
  const s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return s.length > MAX_CELL_TEXT ? s.slice(0, MAX_CELL_TEXT) : s;
};

export function toCell(v: unknown, type: CellType | undefined): Cell {
  if (v === null || v === undefined || v === '') return null;
  switch (type) {
    case undefined:
      if (typeof v === 'number') return Number.isFinite(v) ? { t: 'n', v } : { t: 's', v: String(v) };
      if (typeof v === 'boolean') return { t: 'b', v };
      return { t: 's', v: text(v) };
    case 'string':
      return { t: 's', v: text(v) };
    case 'percent':
      if (typeof v === 'string' && v.trim().endsWith('%')) {
        const n = numericText(v.trim().slice(0, -1));
        if (n !== null) return { t: 'n', v: n / 100 };
      }
      return numeric(v);
    case 'date':
    case 'datetime': {
      const n = typeof v === 'number' ? (Number.isFinite(v) ? numberAsDate(v) : null) : typeof v === 'string' ? dateSerial(v) : null;
      return n === null ? { t: 's', v: text(v) } : { t: 'n', v: n };
    }
    default:
      return numeric(v);
  }
}

function numeric(v: unknown): Cell {
  if (typeof v === 'number') return Number.isFinite(v) ? { t: 'n', v } : { t: 's', v: String(v) };
  if (typeof v === 'string') {
    const n = numericText(v);
    if (n !== null) return { t: 'n', v: n };
  }
  if (typeof v === 'boolean') return { t: 'b', v };
  return { t: 's', v: text(v) };
}
