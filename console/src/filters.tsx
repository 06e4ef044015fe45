// The list's filters: operator, status, and a creation date range (local days). Typed into a
// draft, applied on submit (Enter or the button); reset clears them.
import { useLayoutEffect, useState } from 'preact/hooks';
import { TASK_STATUSES } from '../../model/task.js';
import { useWords } from './i18n.js';
import type { TaskFilters } from './types.js';

export const emptyFilters: TaskFilters = { operator_id: '', status: '', from: '', to: '' };

export function Filters({ value, onChange }: { value: TaskFilters; onChange: (f: TaskFilters) => void }) {
  const w = useWords();
  // The draft follows the applied filters at once (a layout effect runs before any input can): a
  // deferred copy could overwrite what was typed right after a reset.
  const [draft, setDraft] = useState(value);
  useLayoutEffect(() => setDraft(value), [value]);
  const field = (k: keyof TaskFilters) => ({
    name: k,
    value: draft[k],
    onInput: (e: Event) => setDraft({ ...draft, [k]: (e.currentTarget as HTMLInputElement).value }),
  });
  const apply = (e: Event) => {
    e.preventDefault();
    onChange(draft);
  };
  const reset = (e: Event) => {
    e.preventDefault();
    setDraft(emptyFilters);
    onChange(emptyFilters);
  };
  return (
    <form class="filters" role="search" aria-label={w.filters} onSubmit={apply} onReset={reset}>
      <label>
        <span>{w.operator}</span>
        <input {...field('operator_id')} autocomplete="off" />
      </label>
      <label>
        <span>{w.status}</span>
        <select {...field('status')} onChange={field('status').onInput}>
          <option value="">{w.anyStatus}</option>
          {TASK_STATUSES.map((s) => (
            <option key={s} value={s}>{w.statuses[s]}</option>
          ))}
        </select>
      </label>
      <label>
        <span>{w.from}</span>
        <input type="date" {...field('from')} />
      </label>
      <label>
        <span>{w.to}</span>
        <input type="date" {...field('to')} />
      </label>
      <div class="filter-buttons">
        <button type="submit">{w.apply}</button>
        <button type="reset" class="ghost">{w.reset}</button>
      </div>
    </form>
  );
}
