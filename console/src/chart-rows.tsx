// The submit form's chart rows (docs/console.md#what-it-does): each a type, a title, the category
// column and the series columns (comma-separated), and where the chart goes. They become the task's
// `charts`; the JSON box beside them stays for charts written elsewhere and pasted whole.
import { useState } from 'preact/hooks';
import { CHART_PLACES, CHART_TYPES, MAX_CHARTS } from './charts.js';
import { useWords } from './i18n.js';

/** As many rows as the API takes charts. */

/**
 * The charts the form's rows make, or undefined when there is no row. The browser has already
 * refused a row without a category or series (they are required); the API checks the names.
 */
export function chartsOf(form: HTMLFormElement): Array<Record<string, unknown>> | undefined {
  const charts = [...form.querySelectorAll<HTMLElement>('.chart-row')].map((row) => {
    const value = (name: string) => (row.querySelector<HTMLInputElement | HTMLSelectElement>(`[name="${name}"]`)?.value ?? '').trim();
    const series = value('chart_series').split(',').map((s) => s.trim()).filter(Boolean);
    const chart: Record<string, unknown> = { type: value('chart_type'), category: value('chart_category'), series, place: value('chart_place') };
    if (value('chart_title')) chart.title = value('chart_title');
    return chart;
  });
  return charts.length ? charts : undefined;
}

function ChartRow({ n, disabled, onRemove }: { n: number; disabled: boolean; onRemove: () => void }) {
  const w = useWords();
  return (
    <div class="chart-row" role="group" aria-label={w.chartN(n + 1)}>
      <label>
        <span>{w.chartType}</span>
        <select name="chart_type" disabled={disabled}>
          {CHART_TYPES.map((t) => (
            <option key={t} value={t}>{w.chartTypes[t]}</option>
          ))}
        </select>
      </label>
      <label>
        <span>{w.chartTitle}</span>
        <input name="chart_title" maxLength={200} disabled={disabled} />
      </label>
      <label>
        <span>{w.chartCategory}</span>
        <input name="chart_category" maxLength={255} required disabled={disabled} />
      </label>
      <label>
        <span>{w.chartSeries}</span>
        <input name="chart_series" maxLength={3_000} required disabled={disabled} placeholder="amount, refund" />
      </label>
      <label>
        <span>{w.chartPlace}</span>
        <select name="chart_place" disabled={disabled}>
          {CHART_PLACES.map((p) => (
            <option key={p} value={p}>{w.chartPlaces[p]}</option>
          ))}
        </select>
      </label>
      <button type="button" class="ghost" onClick={onRemove}>{w.removeChart}</button>
    </div>
  );
}

/** The chart rows (Excel only), added and removed in place; ids keep each row's own state when one above goes. */
export function ChartRows({ disabled }: { disabled: boolean }) {
  const w = useWords();
  const [rows, setRows] = useState<number[]>([]);
  const [next, setNext] = useState(0);
  return (
    <fieldset class="wide chart-rows">
      <legend>{w.chartRows}</legend>
      <p class="hint">{w.chartRowsHint}</p>
      {rows.map((id, i) => (
        <ChartRow key={id} n={i} disabled={disabled} onRemove={() => setRows(rows.filter((r) => r !== id))} />
      ))}
      <button
        type="button"
        disabled={disabled || rows.length >= MAX_CHARTS}
        onClick={() => {
          setRows([...rows, next]);
          setNext(next + 1);
        }}
      >
        {w.addChart}
      </button>
    </fieldset>
  );
}
