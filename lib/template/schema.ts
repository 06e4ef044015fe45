// The Excel template (design §设计/模板定义) as a zod schema: a column tree ("ceil"), optionally with
// a row-header tree ("row"). Sizes are limited before zod recurses, so a hostile template cannot
// exhaust the stack or the CPU; conditions are parsed here so a bad one is a field-level 422.
import { z } from 'zod';
import { CONDITION_MAX_LENGTH, ConditionError, parseCondition } from './condition.js';

export const TEMPLATE_LIMITS = {
  /** Levels of nesting in one tree (the column header is at most this many rows high). */
  depth: 8,
  /** Nodes in the column tree. */
  ceilNodes: 2000,
  /** Nodes in the row-header tree. */
  rowNodes: 10_000,
  /** Leaf columns: far below Excel's 16,384, far above any readable table. */
  columns: 1000,
  conditionsPerNode: 20,
} as const;

export const CELL_TYPES = ['number', 'integer', 'money', 'decimal', 'percent', 'date', 'datetime', 'string'] as const;
export type CellType = (typeof CELL_TYPES)[number];

/** The design's named colours plus a few obvious ones, as ARGB. */
export const NAMED_COLORS: Record<string, string> = {
  black: 'FF000000',
  white: 'FFFFFFFF',
  red: 'FFFF0000',
  green: 'FF008000',
  blue: 'FF0000FF',
  yellow: 'FFFFFF00',
  cyan: 'FF00FFFF',
  magenta: 'FFFF00FF',
  orange: 'FFFFA500',
  gray: 'FF808080',
  grey: 'FF808080',
};
/** `bg_color: true` in the design's example: a soft highlight. */
const DEFAULT_HIGHLIGHT = 'FFFFF2CC';

const colorText = z
  .string()
  .trim()
  .toLowerCase()
  .refine((s) => /^#?([0-9a-f]{6}|[0-9a-f]{8})$/.test(s) || s in NAMED_COLORS, {
    message: `must be a colour: RRGGBB, #RRGGBB, AARRGGBB or one of ${Object.keys(NAMED_COLORS).join(', ')}`,
  })
  .transform((s) => NAMED_COLORS[s] ?? (s.replace('#', '').length === 6 ? `FF${s.replace('#', '')}` : s.replace('#', '')).toUpperCase());
const fill = z.union([colorText, z.boolean().transform((b) => (b ? DEFAULT_HIGHLIGHT : undefined))]);

// An Excel number format: printable, balanced quotes, at most four sections. Excel has no
// published grammar; this catches what would make it refuse or "repair" the file.
const numFmt = z
  .string()
  .min(1)
  .max(100)
  .refine((s) => !/[\u0000-\u001f]/.test(s) && (s.match(/"/g)?.length ?? 0) % 2 === 0 && s.split(';').length <= 4, {
    message: 'is not a usable Excel number format',
  });

const conditionText = z
  .string()
  .max(CONDITION_MAX_LENGTH)
  .superRefine((s, ctx) => {
    try {
      parseCondition(s);
    } catch (err) {
      if (!(err instanceof ConditionError)) throw err;
      ctx.addIssue({ code: 'custom', message: `invalid condition: ${err.message}` });
    }
  });

const conditionStyle = z.object({
  condition: conditionText,
  color: colorText.optional(),
  bold: z.boolean().optional(),
  italic: z.boolean().optional(),
  bg_color: fill.optional(),
});

const label = z.string().max(255);
const nodeBase = {
  name: label.optional(),
  title: z.union([label, z.number().transform(String)]).optional(),
  color: colorText.optional(),
  bold: z.boolean().optional(),
  bg_color: fill.optional(),
};

const align = z.enum(['left', 'center', 'right']);
const valign = z.enum(['top', 'middle', 'bottom', 'center']).transform((v) => (v === 'center' ? 'middle' : v));

export interface CeilNode {
  name?: string | undefined;
  title?: string | undefined;
  type?: CellType | undefined;
  format?: string | undefined;
  width?: number | undefined;
  height?: number | undefined;
  align?: 'left' | 'center' | 'right' | undefined;
  'v-align'?: 'top' | 'middle' | 'bottom' | undefined;
  color?: string | undefined;
  bold?: boolean | undefined;
  bg_color?: string | undefined;
  condition_style?: z.infer<typeof conditionStyle>[] | undefined;
  children?: CeilNode[] | undefined;
}

export interface RowNode {
  name?: string | undefined;
  title?: string | undefined;
  color?: string | undefined;
  bold?: boolean | undefined;
  bg_color?: string | undefined;
  children?: RowNode[] | undefined;
}

const hasLabel = (n: { name?: string | undefined; title?: string | undefined }) => !!(n.name?.trim() || n.title?.trim());
const labelMessage = { message: 'give the node a name or a title', path: ['name'] };

const ceilNode: z.ZodType<CeilNode> = z
  .object({
    ...nodeBase,
    type: z.enum(CELL_TYPES).optional(),
    format: numFmt.optional(),
    width: z.number().min(1).max(255).optional(),
    height: z.number().min(1).max(409).optional(),
    align: align.optional(),
    // The design spells it v-align; v_align and valign are accepted too.
    'v-align': valign.optional(),
    v_align: valign.optional(),
    valign: valign.optional(),
    condition_style: z.array(conditionStyle).max(TEMPLATE_LIMITS.conditionsPerNode).optional(),
    get children() {
      return z.array(ceilNode).optional();
    },
  })
  .refine(hasLabel, labelMessage)
  .transform(({ v_align, valign: va, ...n }) => ({ ...n, 'v-align': n['v-align'] ?? v_align ?? va }));

const rowNode: z.ZodType<RowNode> = z
  .object({
    ...nodeBase,
    get children() {
      return z.array(rowNode).optional();
    },
  })
  .refine(hasLabel, labelMessage);

/** A list of nodes: a JSON array, or an object whose values are the nodes (a PHP keyed array). */
function nodeList<T>(node: z.ZodType<T>) {
  return z.preprocess((v) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      // One node given on its own.
      if ('name' in o || 'title' in o || 'children' in o) return [o];
      return Object.values(o);
    }
    return v;
  }, z.array(node).min(1, 'needs at least one column'));
}

export interface Template {
  ceil: CeilNode[];
  row?: RowNode[] | undefined;
}

const withRows = z.object({ ceil: nodeList(ceilNode), row: nodeList(rowNode).optional() });

/** Walks the raw tree iteratively (no recursion) and checks depth and node counts first. */
function checkSize(raw: unknown, ctx: z.RefinementCtx, path: (string | number)[], maxNodes: number): boolean {
  const listOf = (v: unknown): unknown[] =>
    Array.isArray(v) ? v : v && typeof v === 'object' ? ('name' in v || 'title' in v || 'children' in v ? [v] : Object.values(v)) : [];
  const stack = listOf(raw).map((v) => ({ v, depth: 1 }));
  let nodes = 0;
  while (stack.length) {
    const { v, depth } = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (depth > TEMPLATE_LIMITS.depth) {
      ctx.addIssue({ code: 'custom', path, message: `is nested deeper than ${TEMPLATE_LIMITS.depth} levels` });
      return false;
    }
    if (++nodes > maxNodes) {
      ctx.addIssue({ code: 'custom', path, message: `has more than ${maxNodes} nodes` });
      return false;
    }
    const children = (v as { children?: unknown }).children;
    if (Array.isArray(children)) for (const c of children) stack.push({ v: c, depth: depth + 1 });
  }
  return true;
}

const IGNORED = new Set(['', '_']);
/** Leaves that map to data (or to the row-header column). */
export function leafCount(nodes: CeilNode[]): number {
  return nodes.reduce((c, n) => c + (n.children?.length ? leafCount(n.children) : IGNORED.has(n.name?.trim() ?? '') ? 0 : 1), 0);
}

/** The template as the API and the source may send it: `[nodes]`, `{ceil, row}`, or one node. */
export const templateSchema = z
  .union([z.array(z.unknown()), z.record(z.string(), z.unknown())], { message: 'must be an object or an array of column nodes' })
  .superRefine((raw, ctx) => {
    const o = raw as Record<string, unknown>;
    const rows = !Array.isArray(o) && 'ceil' in o;
    if (!checkSize(rows ? o.ceil : raw, ctx, rows ? ['ceil'] : [], TEMPLATE_LIMITS.ceilNodes)) return;
    if (rows && o.row !== undefined) checkSize(o.row, ctx, ['row'], TEMPLATE_LIMITS.rowNodes);
  })
  .transform((raw) => {
    const o = raw as Record<string, unknown>;
    return !Array.isArray(o) && 'ceil' in o ? { ceil: o.ceil, row: o.row } : { ceil: raw };
  })
  .pipe(withRows)
  .superRefine((t, ctx) => {
    const leaves = leafCount(t.ceil);
    if (leaves === 0) ctx.addIssue({ code: 'custom', path: ['ceil'], message: 'has no column that maps to data (every leaf is named "_" or unnamed)' });
    if (leaves > TEMPLATE_LIMITS.columns) ctx.addIssue({ code: 'custom', path: ['ceil'], message: `has ${leaves} columns; at most ${TEMPLATE_LIMITS.columns}` });
  }) as z.ZodType<Template, unknown>;

export interface TemplateIssue {
  path: (string | number)[];
  message: string;
}

/** Validates a template; each issue's path points into the template as it was sent. */
export function parseTemplate(raw: unknown): { ok: true; template: Template } | { ok: false; issues: TemplateIssue[] } {
  const r = templateSchema.safeParse(raw);
  if (r.success) return { ok: true, template: r.data };
  // A bare node list was wrapped as {ceil}: point back at what the caller wrote.
  const wrapped = !(raw && typeof raw === 'object' && !Array.isArray(raw) && 'ceil' in raw);
  const issues = r.error.issues.map((i) => {
    const path = i.path.filter((k): k is string | number => typeof k !== 'symbol');
    return { path: wrapped && path[0] === 'ceil' ? path.slice(1) : path, message: i.message };
  });
  return { ok: false, issues };
}

/** One sentence for a failed task: the first issues, each with where it is. */
export function describeIssues(issues: TemplateIssue[]): string {
  const parts = issues.slice(0, 3).map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
  return parts.join('; ') + (issues.length > 3 ? ` (and ${issues.length - 3} more)` : '');
}

/**
 * For request bodies: validates with field-level issues and normalises to `{ceil: [...], row}`.
 * Stored in jsonb, which does not keep object key order: the normal form holds every ordered
 * thing (a keyed node list included) in arrays.
 */
export const templateField = z.unknown().transform((raw, ctx) => {
  const r = parseTemplate(raw);
  if (r.ok) return r.template;
  for (const i of r.issues) ctx.addIssue({ code: 'custom', path: i.path, message: i.message });
  return z.NEVER;
});
