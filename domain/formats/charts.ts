// Charts of an Excel sheet (docs/excel.md#charts): what a request may ask, and how each chart's
// column names become physical columns of the sheet's layout. Names are the data keys: a
// template leaf's `name`, or without a template the keys of the source's rows (its first row's,
// or its template's); a row-header table also offers its row titles as `__row__` (all their
// levels, a multi-level category: merged titles group their rows on the axis).
import { z } from 'zod';
import { DomainError } from '../errors.js';
import type { SheetLayout } from './template/layout.js';

export const CHART_TYPES = ['column', 'bar', 'line', 'pie', 'area'] as const;
export const CHART_PLACES = ['right', 'below', 'sheet'] as const;
export type ChartType = (typeof CHART_TYPES)[number];
export type ChartPlace = (typeof CHART_PLACES)[number];

/** Charts one sheet may carry, and value columns one chart may draw. */
export const MAX_CHARTS = 8;
export const MAX_SERIES = 12;
const ROW_TITLES = new Set(['__row__', '_row_header']);

const columnName = z.string().min(1).max(200);

export const chartSchema = z
  .strictObject({
    type: z.enum(CHART_TYPES),
    title: z.string().max(200).optional(),
    category: columnName,
    series: z.array(columnName).min(1).max(MAX_SERIES),
    place: z.enum(CHART_PLACES).default('right'),
  })
  .superRefine((c, ctx) => {
    if (c.type === 'pie' && c.series.length > 1) ctx.addIssue({ code: 'custom', path: ['series'], message: 'a pie chart draws one value column' });
  });

export const chartsSchema = z.array(chartSchema).max(MAX_CHARTS, `at most ${MAX_CHARTS} charts a sheet`);

export type ChartSpec = z.infer<typeof chartSchema>;

/** A chart whose names are resolved: physical column indexes of the sheet. */
export interface SheetChart {
  type: ChartType;
  title: string | undefined;
  place: ChartPlace;
  category: number;
  /** The category's last column: row titles of several levels are one multi-level category. */
  categoryTo: number;
  series: number[];
}

const rowTitles = (layout: SheetLayout, name: string) => ROW_TITLES.has(name) && layout.rowLevels > 0;

/** The physical column a name stands for (the first row-title column for `__row__`), or -1. */
function columnOf(layout: SheetLayout, name: string): number {
  if (rowTitles(layout, name)) return layout.columns.findIndex((c) => c.key === null);
  return layout.columns.findIndex((c) => c.key === name);
}

export interface ChartProblem {
  path: (string | number)[];
  message: string;
}

/** Each name no column of the layout has, with where it is in the chart list. */
export function chartProblems(charts: ChartSpec[], layout: SheetLayout): ChartProblem[] {
  const names = layout.columns.flatMap((c) => (c.key === null ? [] : [c.key]));
  const known = names.slice(0, 8).join(', ') + (names.length > 8 ? ', …' : '');
  const problems: ChartProblem[] = [];
  charts.forEach((c, i) => {
    const check = (name: string, path: (string | number)[]) => {
      if (columnOf(layout, name) < 0) problems.push({ path: ['charts', i, ...path], message: `names no column of the table: "${name}" (its columns: ${known || 'none'})` });
    };
    check(c.category, ['category']);
    c.series.forEach((s, k) => check(s, ['series', k]));
  });
  return problems;
}

/**
 * The charts as stored (unknown) checked against the sheet's columns: a chart_column_unknown failure
 * when a name is unknown (the columns came from the source, so the request could not be checked).
 */
export function sheetCharts(raw: unknown, layout: SheetLayout, label = ''): SheetChart[] {
  if (raw === undefined || raw === null) return [];
  const parsed = chartsSchema.safeParse(raw);
  const where = label ? `${label}: ` : '';
  if (!parsed.success) throw new DomainError('template_invalid', `${where}the charts are not valid: ${parsed.error.issues[0]?.message ?? 'unknown'}`);
  const problem = chartProblems(parsed.data, layout)[0];
  if (problem) throw new DomainError('chart_column_unknown', `${where}${problem.path.join('.')} ${problem.message}`, { details: [{ field: problem.path.join('.'), message: problem.message }] });
  return parsed.data.map((c) => ({
    type: c.type,
    title: c.title?.trim() || undefined,
    place: c.place,
    category: columnOf(layout, c.category),
    categoryTo: columnOf(layout, c.category) + (rowTitles(layout, c.category) ? layout.rowLevels - 1 : 0),
    series: c.series.map((s) => columnOf(layout, s)),
  }));
}
