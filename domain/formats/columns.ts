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

export function templateColumns(template: unknown): Column[] | null {
  const roots = nodesOf(template);
  if (!roots) return null;
  const out: Column[] = [];
  const walk = (nodes: unknown[]) => {
    for (const raw of nodes) {
      if (!raw || typeof raw !== 'object') continue;
      const n = raw as Node;
      if (Array.isArray(n.children) && n.children.length > 0) {
        walk(n.children);
        continue;
      }
      const name = typeof n.name === 'string' ? n.name : '';
      if (!name || ignoredNames.has(name)) continue;
      out.push({ key: name, title: typeof n.title === 'string' && n.title ? n.title : name, ...(typeof n.type === 'string' ? { type: n.type } : {}) });
    }
  };
  walk(roots);
  return out.length > 0 ? out : null;
}

export function rowColumns(row: unknown): Column[] {
  if (!row || typeof row !== 'object' || Array.isArray(row)) return [];
  return Object.keys(row).map((k) => ({ key: k, title: k }));
}
