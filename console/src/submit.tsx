// The submit form (POST /v1/tasks) with a preview of the first rows (POST /v1/tasks/preview).
// The operator defaults to the last one typed here (localStorage), as the API requires one.
import { useState } from 'preact/hooks';
import { ChartRows, chartsOf } from './chart-rows.js';
import { chartsProblem } from './charts.js';
import { post, preview, type PreviewFile } from './api.js';
import { useWords, type Words } from './i18n.js';
import { PreviewView } from './preview.js';
import { TemplateColumns, templateOf } from './template-columns.js';
import type { Task } from './types.js';

/** The types a file compressor may wrap; Parquet and xlsx are compressed inside already. */
const COMPRESSIBLE = ['csv', 'jsonl'];

function bodyOf(form: HTMLFormElement, w: Words): Record<string, unknown> {
  const data = new FormData(form);
  const text = (k: string) => String(data.get(k) ?? '').trim();
  const body: Record<string, unknown> = { source_url: text('source_url'), operator_id: text('operator_id'), type: text('type') };
  if (text('file_name')) body.file_name = text('file_name');
  if (text('title') && body.type === 'excel') body.title = text('title');
  // Checked as typed (checkJson); the API checks the rest.
  if (text('template') && body.type === 'excel') body.template = JSON.parse(text('template'));
  if (text('charts') && body.type === 'excel') body.charts = JSON.parse(text('charts'));
  if (text('compression') && COMPRESSIBLE.includes(String(body.type))) body.compression = text('compression');
  // The CSV dialect: a field left at "project's default" is not sent, so the project's applies.
  if (body.type === 'csv') {
    // The delimiter is read untrimmed: trim() would turn the tab into nothing.
    const delimiter = String(data.get('csv_delimiter') ?? '');
    if (delimiter) body.csv_delimiter = delimiter;
    if (text('csv_line_ending')) body.csv_line_ending = text('csv_line_ending');
    if (text('csv_bom')) body.csv_bom = text('csv_bom') === 'yes';
  }
  if (text('time_zone') && (body.type === 'csv' || body.type === 'excel')) body.time_zone = text('time_zone');
  if (body.type === 'excel' && !data.get('autofilter')) body.autofilter = false;
  if (text('page_size')) body.page_size = Number(text('page_size'));
  if (text('priority')) body.priority = Number(text('priority'));
  // Two ways to give a template: the column rows (any type, with masks) or the JSON (Excel's full layout).
  const columns = templateOf(form);
  if (columns && body.template) throw new Error(w.templateTwice);
  if (columns) body.template = columns;
  // Likewise the charts: the chart rows or the JSON (pasted whole), not both.
  const charts = body.type === 'excel' ? chartsOf(form) : undefined;
  if (charts && body.charts) throw new Error(w.chartsTwice);
  if (charts) body.charts = charts;
  localStorage.setItem('dc.operator', text('operator_id'));
  return body;
}

const jsonProblem = (text: string) => {
  try {
    if (text.trim()) JSON.parse(text);
    return null;
  } catch {
    return 'not valid JSON';
  }
};

/** A JSON field's own check, shown by the browser when the form is sent (reportValidity). */
const checkJson = (problem: (text: string) => string | null) => (e: Event) => {
  const el = e.currentTarget as HTMLTextAreaElement;
  el.setCustomValidity(problem(el.value) ?? '');
};

export function SubmitPanel({ onSubmitted }: { onSubmitted: (t: Task) => void }) {
  const w = useWords();
  const [open, setOpen] = useState(false);
  const [type, setType] = useState('csv');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  const [shown, setShown] = useState<PreviewFile | null>(null);

  const run = async (e: Event, previewOnly: boolean) => {
    e.preventDefault();
    const form = (e.currentTarget as HTMLElement).closest('form')!;
    if (!form.reportValidity()) return;
    setBusy(true);
    setMessage(null);
    try {
      if (previewOnly) {
        const body = bodyOf(form, w);
        setShown({ ...(await preview({ ...body, rows: 20 })), delimiter: body.csv_delimiter as string | undefined });
      } else {
        const { status, json } = await post<Task>('/v1/tasks', bodyOf(form, w));
        onSubmitted(json);
        setMessage({ error: false, text: status === 200 ? w.deduplicated(json.task_id) : w.submitted(json.task_id) });
      }
    } catch (err) {
      setMessage({ error: true, text: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };

  if (!open) {
    return (
      <div class="new-export">
        <button type="button" class="primary" aria-expanded="false" aria-controls="submit-form" onClick={() => setOpen(true)}>+ {w.newExport}</button>
      </div>
    );
  }
  return (
    <section class="card" aria-labelledby="submit-title">
      <div class="section-head">
        <h2 id="submit-title">{w.newExport}</h2>
        <button type="button" class="ghost" aria-expanded="true" aria-controls="submit-form" onClick={() => setOpen(false)}>{w.closeForm}</button>
      </div>
      <form id="submit-form" class="submit-form" method="post" action="/" onSubmit={(e) => run(e, false)}>
        <label class="wide">
          <span>{w.sourceUrl}</span>
          <input name="source_url" type="url" required placeholder="https://erp.example/orders?month=2026-11" />
        </label>
        <label>
          <span>{w.operator}</span>
          <input name="operator_id" required maxLength={128} defaultValue={localStorage.getItem('dc.operator') ?? ''} />
        </label>
        <label>
          <span>{w.type}</span>
          <select name="type" value={type} onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value)}>
            <option value="csv">CSV</option>
            <option value="excel">Excel (xlsx)</option>
            <option value="jsonl">JSON Lines (jsonl)</option>
            <option value="parquet">Parquet</option>
          </select>
        </label>
        <label>
          <span>{w.compression}</span>
          <select name="compression" disabled={!COMPRESSIBLE.includes(type)}>
            <option value="">{w.noCompression}</option>
            <option value="gzip">gzip (.gz)</option>
            <option value="zstd">zstd (.zst)</option>
          </select>
        </label>
        <label>
          <span>{w.delimiter}</span>
          <select name="csv_delimiter" disabled={type !== 'csv'}>
            <option value="">{w.projectDefault}</option>
            <option value=",">{w.comma}</option>
            <option value=";">{w.semicolon}</option>
            <option value={'\t'}>{w.tab}</option>
            <option value="|">{w.pipe}</option>
          </select>
        </label>
        <label>
          <span>{w.lineEnding}</span>
          <select name="csv_line_ending" disabled={type !== 'csv'}>
            <option value="">{w.projectDefault}</option>
            <option value="crlf">CR LF (Windows)</option>
            <option value="lf">LF</option>
          </select>
        </label>
        <label>
          <span>{w.bom}</span>
          <select name="csv_bom" disabled={type !== 'csv'}>
            <option value="">{w.projectDefault}</option>
            <option value="yes">{w.withBom}</option>
            <option value="no">{w.withoutBom}</option>
          </select>
        </label>
        <label>
          <span>{w.timeZone}</span>
          <input name="time_zone" maxLength={64} placeholder="Asia/Shanghai" title={w.timeZoneHint} disabled={type !== 'csv' && type !== 'excel'} />
        </label>
        <label class="check">
          <input name="autofilter" type="checkbox" defaultChecked disabled={type !== 'excel'} />
          <span>{w.autofilter}</span>
        </label>
        <label>
          <span>{w.fileName}</span>
          <input name="file_name" maxLength={200} />
        </label>
        <label>
          <span>{w.fileTitle}</span>
          <input name="title" disabled={type !== 'excel'} maxLength={200} />
        </label>
        <label class="wide">
          <span>{w.template}</span>
          <textarea name="template" rows={3} disabled={type !== 'excel'} maxLength={100_000} spellcheck={false} placeholder='[{"name": "month", "title": "Month"}, {"name": "amount", "title": "Amount", "type": "money"}]' onInput={checkJson(jsonProblem)} />
        </label>
        <label class="wide">
          <span>{w.charts}</span>
          <textarea name="charts" rows={3} disabled={type !== 'excel'} maxLength={20_000} spellcheck={false} placeholder='[{"type": "column", "title": "Amount by month", "category": "month", "series": ["amount"], "place": "right"}]' onInput={checkJson(chartsProblem)} />
        </label>
        <label>
          <span>{w.pageSize}</span>
          <input name="page_size" type="number" min={100} max={1000} step={1} defaultValue="500" />
        </label>
        <label>
          <span>{w.priority}</span>
          <select name="priority">
            {[1, 2, 3, 4, 5].map((n) => (
              <option key={n} value={String(n)} selected={n === 3}>{n}</option>
            ))}
          </select>
        </label>
        <TemplateColumns />
        <ChartRows disabled={type !== 'excel'} />
        <div class="form-buttons wide">
          <button type="submit" class="primary" disabled={busy}>{w.submit}</button>
          <button type="button" disabled={busy} onClick={(e) => run(e, true)}>{w.preview}</button>
          {busy && <span role="status">{w.busy}</span>}
        </div>
      </form>
      {message && <p class={message.error ? 'error' : 'ok'} role={message.error ? 'alert' : 'status'}>{message.text}</p>}
      {shown && <PreviewView file={shown} />}
    </section>
  );
}
