// Columns of a flat export: the template's leaves (name → key, title → header text), or the
// first row's keys when there is no template. The Excel renderer has the full template model.

export interface Column {
  key: string;
  title: string;
  /** The template's cell type (integer, number, money, date, …): Parquet's column type. */
  type?: string;
}

interface Node {
  name?: unknown;
  title?: unknown;
  type?: unknown;
  mask?: unknown;
  children?: unknown;
}

const ignoredNames = new Set(['_', '__row__', '_row_header']);

function nodesOf(template: unknown): unknown[] | null {
  if (Array.isArray(template)) return template;
  if (template && typeof template === 'object') {
    const t = template as Record<string, unknown>;
    if ('ceil' in t) return nodesOf(t.ceil);
    if ('children' in t || 'name' in t) return [t];
    return Object.values(t);
  }
  return null;
}

/** The template's leaves that map to data, in column order (raw nodes: the template may be the source's, unchecked). */
function dataLeaves(template: unknown): Array<Node & { name: string }> | null {
  const roots = nodesOf(template);
  if (!roots) return null;
  const out: Array<Node & { name: string }> = [];
  // A group's mask reaches each of its columns that has none of its own.
  const walk = (nodes: unknown[], mask: unknown) => {
    for (const raw of nodes) {
      if (!raw || typeof raw !== 'object') continue;
      const n = raw as Node;
      if (Array.isArray(n.children) && n.children.length > 0) {
        walk(n.children, n.mask ?? mask);
        continue;
      }
      const name = typeof n.name === 'string' ? n.name : '';
      if (!name || ignoredNames.has(name)) continue;
      out.push({ ...n, name, mask: n.mask ?? mask });
    }
  };
  walk(roots, undefined);
  return out;
}

export function templateColumns(template: unknown): Column[] | null {
  const out = (dataLeaves(template) ?? []).map((n) => ({ key: n.name, title: typeof n.title === 'string' && n.title ? n.title : n.name, ...(typeof n.type === 'string' ? { type: n.type } : {}) }));
  return out.length > 0 ? out : null;
}

/** Each data column's `mask` as the template gives it (unchecked), in column order. */
export function templateMasks(template: unknown): Array<[key: string, mask: unknown]> {
  return (dataLeaves(template) ?? []).filter((n) => n.mask !== undefined).map((n) => [n.name, n.mask]);
}

export function rowColumns(row: unknown): Column[] {
  if (!row || typeof row !== 'object' || Array.isArray(row)) return [];
  return Object.keys(row).map((k) => ({ key: k, title: k }));
}
