// A schedule's placeholders (domain/schedules/placeholders.ts) and intervals (api/schemas/schedules.ts).
import { describe, expect, it } from 'vitest';
import { parseEvery } from '../../api/schemas/schedules.js';
import { fillBody, isTimeZone, placeholderProblem, values } from '../../domain/schedules/placeholders.js';

describe('placeholder values', () => {
  it('takes the run’s calendar date in the schedule’s time zone', () => {
    const at = new Date('2026-11-30T18:30:00Z'); // 02:30 on 1 December in Shanghai
    expect(values(at, 'UTC')).toEqual({ date: '2026-11-30', yesterday: '2026-11-29', month: '2026-11', last_month: '2026-10', year: '2026' });
    expect(values(at, 'Asia/Shanghai')).toEqual({ date: '2026-12-01', yesterday: '2026-11-30', month: '2026-12', last_month: '2026-11', year: '2026' });
    expect(values(new Date('2027-01-01T00:00:00Z'), 'UTC')).toMatchObject({ yesterday: '2026-12-31', last_month: '2026-12' });
    expect(values(new Date('2028-03-01T12:00:00Z'), 'UTC').yesterday).toBe('2028-02-29');
  });

  it('fills file_name and only the query of each source_url', () => {
    const body = { source_url: 'http://h/{{date}}/x?d={{date}}&m={{ month }}#{{date}}', file_name: 'r-{{yesterday}}', sheets: [{ source_url: 'http://h/y?y={{year}}' }] };
    expect(fillBody(body, new Date('2026-11-03T08:00:00Z'), 'UTC')).toEqual({
      source_url: 'http://h/{{date}}/x?d=2026-11-03&m=2026-11#{{date}}',
      file_name: 'r-2026-11-02',
      sheets: [{ source_url: 'http://h/y?y=2026' }],
    });
  });

  it('names what cannot be filled', () => {
    expect(placeholderProblem('x-{{date}}', 'file_name')).toBeNull();
    expect(placeholderProblem('x-{{week}}', 'file_name')).toMatch(/unknown placeholder \{\{week\}\}/);
    expect(placeholderProblem('http://h/p?d={{date}}', 'query')).toBeNull();
    expect(placeholderProblem('http://h/{{date}}?d=1', 'query')).toMatch(/only in the query/);
    expect(placeholderProblem('http://h/p?d=1#{{date}}', 'query')).toMatch(/only in the query/);
  });

  it('knows IANA time zones', () => {
    expect(['UTC', 'Asia/Shanghai', 'America/Argentina/Buenos_Aires'].every(isTimeZone)).toBe(true);
    expect(['Mars/Base', '', 'GMT+25'].some(isTimeZone)).toBe(false);
  });
});

describe('every', () => {
  it('reads durations such as 15m, 1h30m and 2d', () => {
    expect([parseEvery('15m'), parseEvery('1h30m'), parseEvery('2d'), parseEvery('90s')]).toEqual([900_000, 5_400_000, 172_800_000, 90_000]);
    expect([parseEvery(''), parseEvery('1 hour'), parseEvery('m'), parseEvery('30m1h')]).toEqual([null, null, null, null]);
  });
});
