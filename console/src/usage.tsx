// The usage page (docs/usage.md): the project's last 30 UTC days as bars, one figure at a time
// (tasks, rows or bytes), with the totals and the bytes stored now. Bars rather than a table: a
// person sees a busy day or a failing week at a glance; each bar's title gives the exact figures.
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { bytes, count } from './format.js';
import { useWords } from './i18n.js';
import type { Usage, UsageDay } from './types.js';

const USAGE_DAYS = 30;
const FIGURES = ['tasks', 'rows', 'bytes'] as const;
type Figure = (typeof FIGURES)[number];

const utcDate = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

export function UsagePage() {
  const w = useWords();
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [figure, setFigure] = useState<Figure>('tasks');

  const load = async () => {
    try {
      setUsage(await getJson<Usage>(`/v1/usage?from=${utcDate(1 - USAGE_DAYS)}&to=${utcDate(0)}`));
      setError(null);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  useEffect(() => void load(), []);

  const shown = (n: number) => (figure === 'bytes' ? bytes(n) : count(n, w.code));
  const total = (f: keyof Omit<UsageDay, 'date'>) => (usage ? usage.days.reduce((s, d) => s + d[f], 0) : 0);

  return (
    <section class="card" aria-labelledby="usage-title">
      <div class="section-head">
        <h2 id="usage-title">{w.usage}</h2>
        <div class="lang" role="group" aria-label={w.usageFigure}>
          {FIGURES.map((f) => (
            <button type="button" key={f} aria-pressed={figure === f} onClick={() => setFigure(f)}>{w.usageFigures[f]}</button>
          ))}
        </div>
        <button type="button" class="ghost" onClick={() => load()}>{w.refresh}</button>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {usage && (
        <>
          <Bars days={usage.days} figure={figure} label={w.usageChart(w.usageFigures[figure], USAGE_DAYS)} shown={shown} titleOf={(d) => w.usageDayTitle(d, count(d.rows, w.code), bytes(d.bytes))} />
          <dl class="usage-totals">
            <div><dt>{w.usageFigures.tasks}</dt><dd>{count(total('tasks'), w.code)}</dd></div>
            <div><dt>{w.statuses.succeeded}</dt><dd>{count(total('succeeded'), w.code)}</dd></div>
            <div><dt>{w.statuses.failed}</dt><dd>{count(total('failed'), w.code)}</dd></div>
            <div><dt>{w.usageFigures.rows}</dt><dd>{count(total('rows'), w.code)}</dd></div>
            <div><dt>{w.usageFigures.bytes}</dt><dd>{bytes(total('bytes'))}</dd></div>
            <div><dt>{w.usageDeliveries}</dt><dd>{count(total('deliveries'), w.code)}</dd></div>
            <div><dt>{w.usageEmails}</dt><dd>{count(total('emails'), w.code)}</dd></div>
            <div><dt>{w.usageStored}</dt><dd>{bytes(usage.stored_bytes)}</dd></div>
          </dl>
          <p class="hint">{w.usageHint}</p>
        </>
      )}
    </section>
  );
}

const WIDTH = 600;
const HEIGHT = 160;
const AXIS = 18;

interface BarsProps {
  days: UsageDay[];
  figure: Figure;
  label: string;
  shown: (n: number) => string;
  titleOf: (d: UsageDay) => string;
}

/** One bar per day, scaled to the busiest day of the range; the first and last dates under the axis. */
function Bars({ days, figure, label, shown, titleOf }: BarsProps) {
  const max = Math.max(1, ...days.map((d) => d[figure]));
  const slot = WIDTH / Math.max(1, days.length);
  const plot = HEIGHT - AXIS;
  return (
    <svg class="usage-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label}>
      <title>{label}</title>
      <text x="0" y="10" class="usage-max">{shown(max)}</text>
      <line x1="0" x2={WIDTH} y1={plot} y2={plot} class="usage-axis" />
      {days.map((d, i) => {
        const h = (d[figure] / max) * (plot - 14);
        return (
          <rect key={d.date} class="usage-bar" data-date={d.date} data-value={d[figure]} x={i * slot + slot * 0.15} width={slot * 0.7} y={plot - h} height={Math.max(h, d[figure] > 0 ? 1 : 0)}>
            <title>{titleOf(d)}</title>
          </rect>
        );
      })}
      <text x="0" y={HEIGHT - 3} class="usage-date">{days[0]?.date}</text>
      <text x={WIDTH} y={HEIGHT - 3} class="usage-date" text-anchor="end">{days[days.length - 1]?.date}</text>
    </svg>
  );
}
