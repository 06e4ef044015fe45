// A preview file shown as tables: CSV and JSON Lines parsed, xlsx read sheet by sheet with its merged header
// cells, formats and fills, so the first rows look as the export will lay them out.
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { PreviewFile } from './api.js';
import { ChartSvg } from './chart-svg.js';
import { parseCsv, sniffDelimiter } from './csv.js';
import { useWords } from './i18n.js';
import { type Cell, parseXlsx, type Sheet } from './xlsx.js';

const plain = (text: string): Cell => ({ text, colSpan: 1, rowSpan: 1, bold: false, fill: null, align: null, numeric: false });

function csvSheet(file: PreviewFile): Sheet {
  const text = new TextDecoder().decode(file.bytes);
  const rows = parseCsv(text, file.name.endsWith('.tsv') ? '\t' : (file.delimiter ?? sniffDelimiter(text)));
  return { name: file.name, rows: rows.map((r, i) => r.map((text) => ({ ...plain(text), bold: i === 0 }))) };
}

/** JSON Lines as a table: the first line's keys as the header, nested values as JSON text. */
function jsonlSheet(file: PreviewFile): Sheet {
  const objects = new TextDecoder().decode(file.bytes).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const keys = Object.keys(objects[0] ?? {});
  const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const rows = [keys, ...objects.map((o) => keys.map((k) => cell(o[k])))];
  return { name: file.name, rows: rows.map((r, i) => r.map((text) => ({ ...plain(text), bold: i === 0 }))) };
}

export function PreviewView({ file }: { file: PreviewFile }) {
  const w = useWords();
  const [sheets, setSheets] = useState<Sheet[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const href = useMemo(() => URL.createObjectURL(new Blob([file.bytes as BlobPart])), [file]);
  useEffect(() => () => URL.revokeObjectURL(href), [href]);

  useEffect(() => {
    setError(null);
    if (file.name.endsWith('.csv') || file.name.endsWith('.tsv')) setSheets([csvSheet(file)]);
    else if (file.name.endsWith('.jsonl')) setSheets([jsonlSheet(file)]);
    else if (file.name.endsWith('.xlsx')) parseXlsx(file.bytes).then(setSheets, (e: Error) => setError(e.message));
    else setSheets([]);
  }, [file]);

  return (
    <div class="preview" aria-live="polite">
      <p class="hint">
        {w.previewOf(file.rows, file.total)} · <a href={href} download={file.name}>{w.previewFile}</a>
      </p>
      {error && <p class="error" role="alert">{error}</p>}
      {sheets?.map((s) => (
        <div class="sheet" key={s.name} tabIndex={0} role="region" aria-label={s.name}>
          {sheets.length > 1 && <h3>{s.name}</h3>}
          {s.charts?.length ? (
            <div class="charts">
              {s.charts.map((c, i) => (
                <ChartSvg key={i} chart={c} />
              ))}
            </div>
          ) : null}
          <table>
            <tbody>
              {s.rows.map((r, i) => (
                <tr key={i}>
                  {r.map((c, k) =>
                    c ? (
                      <td key={k} colSpan={c.colSpan} rowSpan={c.rowSpan} class={`${c.bold ? 'b' : ''} ${c.numeric ? 'num' : ''} ${c.align ? `al-${c.align}` : ''}`} style={c.fill ? { background: c.fill } : undefined}>
                        {c.text}
                      </td>
                    ) : null,
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </div>
  );
}
