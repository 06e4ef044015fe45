// A preview's chart drawn as SVG from the preview's rows: bars, columns, lines, areas or a pie,
// with the chart's title and a legend of its series. A sketch of what Excel or LibreOffice draws
// from the same cells, not a copy of it.
import type { ChartData } from './charts.js';

const W = 520;
const H = 260;
const PAD = { left: 48, right: 12, top: 30, bottom: 46 };
const COLORS = ['#4472c4', '#ed7d31', '#a5a5a5', '#ffc000', '#5b9bd5', '#70ad47', '#264478', '#9e480e'];
/** Categories drawn at most (a preview has up to 200 rows). */
const MAX_POINTS = 60;

const color = (i: number) => COLORS[i % COLORS.length]!;

function Pie({ chart }: { chart: ChartData }) {
  const values = (chart.series[0]?.values ?? []).slice(0, MAX_POINTS).map((v) => Math.max(0, v));
  const sum = values.reduce((a, b) => a + b, 0) || 1;
  const [cx, cy, r] = [W / 2, (H + PAD.top - PAD.bottom) / 2 + 6, (H - PAD.top - PAD.bottom) / 2];
  let angle = -Math.PI / 2;
  return (
    <g>
      {values.map((v, i) => {
        const a0 = angle;
        angle += (v / sum) * 2 * Math.PI;
        const large = angle - a0 > Math.PI ? 1 : 0;
        const p = (a: number) => `${(cx + r * Math.cos(a)).toFixed(1)} ${(cy + r * Math.sin(a)).toFixed(1)}`;
        if (v >= sum) return <circle key={i} cx={cx} cy={cy} r={r} fill={color(i)} />;
        return <path key={i} d={`M ${cx} ${cy} L ${p(a0)} A ${r} ${r} 0 ${large} 1 ${p(angle)} Z`} fill={color(i)} stroke="#fff"><title>{`${chart.categories[i] ?? ''}: ${v}`}</title></path>;
      })}
    </g>
  );
}

function Axes({ chart }: { chart: ChartData }) {
  const n = Math.min(MAX_POINTS, chart.categories.length, Math.max(0, ...chart.series.map((s) => s.values.length)));
  const all = chart.series.flatMap((s) => s.values.slice(0, n));
  const [lo, hi] = [Math.min(0, ...all), Math.max(0, ...all)];
  const span = hi - lo || 1;
  const horizontal = chart.kind === 'bar';
  const [pw, ph] = [W - PAD.left - PAD.right, H - PAD.top - PAD.bottom];
  // Position along the value axis (0..1 from the low end) and of a category's slot.
  const at = (v: number) => (v - lo) / span;
  const slot = (horizontal ? ph : pw) / Math.max(1, n);
  const valuePos = (v: number) => (horizontal ? PAD.left + at(v) * pw : PAD.top + ph - at(v) * ph);
  const catPos = (i: number) => (horizontal ? PAD.top + slot * (i + 0.5) : PAD.left + slot * (i + 0.5));
  const zero = valuePos(0);
  const bars = chart.kind === 'column' || chart.kind === 'bar';
  const width = (slot * 0.7) / Math.max(1, chart.series.length);
  return (
    <g>
      {chart.series.map((s, k) => {
        const vals = s.values.slice(0, n);
        if (bars) {
          return vals.map((v, i) => {
            const off = catPos(i) - slot * 0.35 + k * width;
            const [a, b] = [Math.min(zero, valuePos(v)), Math.abs(valuePos(v) - zero)];
            return horizontal ? <rect key={`${k}-${i}`} x={a} y={off} width={b} height={width} fill={color(k)} /> : <rect key={`${k}-${i}`} x={off} y={a} width={width} height={b} fill={color(k)} />;
          });
        }
        const pts = vals.map((v, i) => `${catPos(i).toFixed(1)},${valuePos(v).toFixed(1)}`);
        if (chart.kind === 'area') return <polygon key={k} points={`${catPos(0)},${zero} ${pts.join(' ')} ${catPos(vals.length - 1)},${zero}`} fill={color(k)} fill-opacity="0.55" />;
        return <polyline key={k} points={pts.join(' ')} fill="none" stroke={color(k)} stroke-width="2" />;
      })}
      {horizontal ? <line x1={zero} x2={zero} y1={PAD.top} y2={PAD.top + ph} stroke="#889" /> : <line x1={PAD.left} x2={PAD.left + pw} y1={zero} y2={zero} stroke="#889" />}
      <text x={horizontal ? PAD.left + pw : PAD.left - 4} y={horizontal ? H - PAD.bottom + 14 : PAD.top + 4} text-anchor="end" class="tick">{hi.toLocaleString()}</text>
      {chart.categories.slice(0, n).map((c, i) =>
        i % Math.ceil(n / 12) === 0 ? (
          <text key={i} x={horizontal ? PAD.left - 4 : catPos(i)} y={horizontal ? catPos(i) + 4 : H - PAD.bottom + 14} text-anchor={horizontal ? 'end' : 'middle'} class="tick">{c.slice(0, 10)}</text>
        ) : null,
      )}
    </g>
  );
}

export function ChartSvg({ chart }: { chart: ChartData }) {
  const names = chart.kind === 'pie' ? chart.categories.slice(0, 8) : chart.series.map((s) => s.name);
  return (
    <svg class="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={chart.title || chart.series.map((s) => s.name).join(', ')}>
      {chart.title && <text x={W / 2} y={18} text-anchor="middle" class="chart-title">{chart.title}</text>}
      {chart.kind === 'pie' ? <Pie chart={chart} /> : <Axes chart={chart} />}
      <g class="legend">
        {names.map((name, i) => (
          <g key={i} transform={`translate(${PAD.left + i * 90}, ${H - 14})`}>
            <rect width="10" height="10" y="-9" fill={color(i)} />
            <text x="14">{name.slice(0, 12)}</text>
          </g>
        ))}
      </g>
    </svg>
  );
}
