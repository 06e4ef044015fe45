// The Excel template's nodes (design §设计/模板定义) as zod schemas: column nodes ("ceil") and
// row-header nodes ("row"). Conditions are parsed here, so a bad one is a field-level 422; sizes
// are checked before these schemas recurse (template.ts).
import { z } from 'zod';
import { type MaskSpec, maskSchema } from '../../../model/mask.js';
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
  .refine((s) => /^#?([0-9a-f]{6}|[0-9a-f]{8})$/.test(s) || Object.hasOwn(NAMED_COLORS, s), {
    message: `must be a colour: RRGGBB, #RRGGBB, AARRGGBB or one of ${Object.keys(NAMED_COLORS).join(', ')}`,
  })
  .transform((s) => (Object.hasOwn(NAMED_COLORS, s) ? NAMED_COLORS[s]! : (s.replace('#', '').length === 6 ? `FF${s.replace('#', '')}` : s.replace('#', '')).toUpperCase()));
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
  /** The column's mask (docs/formats.md#masked-columns); a group's applies to its columns without their own. */
  mask?: MaskSpec | undefined;
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
    mask: maskSchema.optional(),
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

export const withRows = z.object({ ceil: nodeList(ceilNode), row: nodeList(rowNode).optional() });
