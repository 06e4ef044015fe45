// The submit form's template columns (docs/console.md#what-it-does): each a source key, a
// header and a mask (docs/formats.md#masked-columns). No column: the export takes the first row's
// keys, as without a template. The project's mask_columns apply whatever is chosen here.
import { useState } from 'preact/hooks';
import { useWords } from './i18n.js';

/** The masks of model/mask.ts (not imported: it would bring zod into the page). */
export const MASKS = ['phone', 'id_card', 'bank_card', 'email', 'name', 'hash'] as const;

/**
 * The template the form's column rows make, or undefined when no row names a column. Read row by
 * row from the form (not from FormData, which leaves out the disabled keep fields and would shift them).
 */
export function templateOf(form: HTMLFormElement): Array<Record<string, unknown>> | undefined {
  const columns = [...form.querySelectorAll<HTMLElement>('.template-column')].flatMap((row) => {
    const value = (name: string) => (row.querySelector<HTMLInputElement | HTMLSelectElement>(`[name="${name}"]`)?.value ?? '').trim();
    const name = value('col_name');
    if (!name) return [];
    const col: Record<string, unknown> = { name };
    if (value('col_title')) col.title = value('col_title');
    const mask = value('col_mask');
    if (mask === 'keep') col.mask = { keep_start: Number(value('col_keep_start') || 0), keep_end: Number(value('col_keep_end') || 0) };
    else if (mask) col.mask = mask;
    return [col];
  });
  return columns.length ? columns : undefined;
}

function ColumnRow({ n, onRemove }: { n: number; onRemove: () => void }) {
  const w = useWords();
  const [mask, setMask] = useState('');
  return (
    <div class="template-column" role="group" aria-label={w.columnN(n + 1)}>
      <label>
        <span>{w.columnKey}</span>
        <input name="col_name" maxLength={255} />
      </label>
      <label>
        <span>{w.columnTitle}</span>
        <input name="col_title" maxLength={255} />
      </label>
      <label>
        <span>{w.mask}</span>
        <select name="col_mask" value={mask} onChange={(e) => setMask((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">{w.noMask}</option>
          {MASKS.map((m) => (
            <option key={m} value={m}>{w.maskNames[m]}</option>
          ))}
          <option value="keep">{w.maskNames.keep}</option>
        </select>
      </label>
      <label>
        <span>{w.keepStart}</span>
        <input name="col_keep_start" type="number" min={0} max={64} step={1} defaultValue="0" disabled={mask !== 'keep'} />
      </label>
      <label>
        <span>{w.keepEnd}</span>
        <input name="col_keep_end" type="number" min={0} max={64} step={1} defaultValue="0" disabled={mask !== 'keep'} />
      </label>
      <button type="button" class="ghost" onClick={onRemove}>{w.removeColumn}</button>
    </div>
  );
}

/** The column rows, added and removed in place; ids keep each row's own state when one above goes. */
export function TemplateColumns() {
  const w = useWords();
  const [rows, setRows] = useState<number[]>([]);
  const [next, setNext] = useState(0);
  return (
    <fieldset class="wide template-columns">
      <legend>{w.templateColumns}</legend>
      <p class="hint">{w.templateColumnsHint}</p>
      {rows.map((id, i) => (
        <ColumnRow key={id} n={i} onRemove={() => setRows(rows.filter((r) => r !== id))} />
      ))}
      <button
        type="button"
        onClick={() => {
          setRows([...rows, next]);
          setNext(next + 1);
        }}
      >
        {w.addColumn}
      </button>
    </fieldset>
  );
}
