// A schedule's placeholders and windows' ISO times (domain/schedules/placeholders.ts) and intervals (api/schemas/schedules.ts).
import { describe, expect, it } from 'vitest';
import { parseEvery } from '../../api/schemas/schedules.js';
import { fillBody, isTimeZone, placeholderProblem, usesWindow, values, zonedIso } from '../../domain/schedules/placeholders.js';

describe('placeholder values', () => {
  it('takes the run’s calendar date in the schedule’s time zone', () => {
    const at = new Date('2026-11-30T18:30:00Z'); // 02:30 on 1 December in Shanghai
    const empty = (offset: string, local: string) => ({ interval_start: `${local}${offset}`, interval_end: `${local}${offset}` });
    expect(values(at, 'UTC')).toEqual({ date: '2026-11-30', yesterday: '2026-11-29', month: '2026-11', last_month: '2026-10', year: '2026', ...empty('+00:00', '2026-11-30T18:30:00') });
    expect(values(at, 'Asia/Shanghai')).toEqual({ date: '2026-12-01', yesterday: '2026-11-30', month: '2026-12', last_month: '2026-11', year: '2026', ...empty('+08:00', '2026-12-01T02:30:00') });
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

  it('writes a window as ISO 8601 local times with the zone’s offset at each end', () => {
    expect(zonedIso(new Date('2026-11-24T00:00:00Z'), 'Asia/Kolkata')).toBe('2026-11-24T05:30:00+05:30');
    expect(zonedIso(new Date('2026-11-24T03:00:00Z'), 'America/New_York')).toBe('2026-11-23T22:00:00-05:00');
    expect(zonedIso(new Date('2026-11-24T03:00:00Z'), 'America/New_York', true)).toBe('20261123T220000-0500');
    expect(zonedIso(new Date('2026-11-23T16:00:00Z'), 'Asia/Shanghai')).toBe('2026-11-24T00:00:00+08:00');
    expect(zonedIso(new Date('2026-11-24T03:00:00Z'), 'Asia/Kathmandu')).toBe('2026-11-24T08:45:00+05:45');
    // Berlin's autumn change: the same wall-clock hour twice, told apart by the offset.
    expect(zonedIso(new Date('2026-10-25T00:30:00Z'), 'Europe/Berlin')).toBe('2026-10-25T02:30:00+02:00');
    expect(zonedIso(new Date('2026-10-25T01:30:00Z'), 'Europe/Berlin')).toBe('2026-10-25T02:30:00+01:00');
  });

  it('fills the window, percent-encoded in a query and in the basic format in a file name', () => {
    const body = { source_url: 'http://h/x?from={{interval_start}}&to={{ interval_end }}&d={{date}}', file_name: 'r-{{interval_start}}' };
    const window = { start: new Date('2026-11-24T00:00:00Z'), end: new Date('2026-11-24T01:00:00Z') };
    expect(fillBody(body, window.end, 'Asia/Shanghai', window)).toEqual({
      source_url: 'http://h/x?from=2026-11-24T08%3A00%3A00%2B08%3A00&to=2026-11-24T09%3A00%3A00%2B08%3A00&d=2026-11-24',
      file_name: 'r-20261124T080000+0800',
    });
    const filled = new URL(fillBody(body, window.end, 'America/New_York', window).source_url).searchParams;
    expect([filled.get('from'), filled.get('to')]).toEqual(['2026-11-23T19:00:00-05:00', '2026-11-23T20:00:00-05:00']);
  });

  it('asks for a window only for an {{interval_…}} placeholder, not for a literal that looks like one', () => {
    expect(usesWindow({ source_url: 'http://h/x?interval_minutes=5&d={{date}}', file_name: 'interval_report' })).toBe(false);
    expect(usesWindow({ source_url: 'http://h/x?from={{ interval_start }}' })).toBe(true);
    expect(usesWindow({ source_url: 'http://h/x', file_name: 'r-{{interval_end}}' })).toBe(true);
    expect(usesWindow({ source_url: 'http://h/x', sheets: [{ source_url: 'http://h/y' }, { source_url: 'http://h/z?to={{interval_end}}' }] })).toBe(true);
  });

  it('names what cannot be filled', () => {
    expect(placeholderProblem('x-{{date}}', 'file_name')).toBeNull();
    expect(placeholderProblem('x-{{interval_start}}-{{interval_end}}', 'file_name')).toBeNull();
    expect(placeholderProblem('http://h/{{interval_start}}?d=1', 'query')).toMatch(/only in the query/);
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
