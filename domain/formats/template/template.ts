// The whole template as the API and the source send it: sizes checked first, then the node
// schemas (schema.ts), then column counts; issues carry the path into what the caller wrote.
import { z } from 'zod';
import { type CeilNode, TEMPLATE_LIMITS, type Template, withRows } from './schema.js';

export type { Template } from './schema.js';

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
