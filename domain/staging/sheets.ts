// The worksheets of a task: an Excel task submitted with `sheets` has one per entry, each with its
// own source and layout; any other task is one sheet made of its own fields. Fetching, staging and
// rendering all go through this list, so a single-sheet export is simply sheet 0.
import type { SheetLayout, TaskOptions } from '../../model/task-options.js';
import { sheetNames } from '../formats/xlsx/sheet-names.js';

export type { StoredSheet } from '../../model/task-options.js';

export interface SheetSpec {
  sourceUrl: string;
  /** title, summary, template, header, footer as stored (the task's own for a single sheet). */
  options: SheetLayout;
  /** The worksheet's name in the workbook (unique). */
  name: string;
}

const text = (v: string | undefined) => (v?.trim() ? v : undefined);

export function taskSheets(task: { sourceUrl: string; options: TaskOptions }): SheetSpec[] {
  const stored = task.options.sheets;
  if (!stored?.length) return [{ sourceUrl: task.sourceUrl, options: task.options, name: sheetNames([{ title: text(task.options.title) }])[0]! }];
  const names = sheetNames(stored.map((s) => ({ name: text(s.name), title: text(s.title) })));
  return stored.map((s, i) => ({ sourceUrl: s.source_url, options: { ...s }, name: names[i]! }));
}

/** How messages about one sheet of several start: `sheet 2 ("Refunds")`. */
export const sheetLabel = (sheets: SheetSpec[], i: number) => (sheets.length > 1 ? `sheet ${i + 1} ("${sheets[i]!.name}")` : '');
