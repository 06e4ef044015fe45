// Reading calendar text in place: the date cells of a workbook and the zoned date-times of a task
// with a time_zone are read a million times an export, without a regex or a Date.

/** The n digits of s at `from` as a number, -1 when one is not a digit. */
export function digits(s: string, from: number, n: number): number {
  let v = 0;
  for (let i = from; i < from + n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether y-mo-d is a day of the proleptic Gregorian calendar (y ≥ 0). */
export function isCalendarDay(y: number, mo: number, d: number): boolean {
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return y >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= (mo === 2 && leap ? 29 : DAYS_IN_MONTH[mo - 1]!);
}
