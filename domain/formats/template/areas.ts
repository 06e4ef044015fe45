// The header and footer areas (design §设计, 头部区): key/value pairs above and below the table.
// A two-dimensional array is laid out by its own rows; a flat object is laid out automatically.
import { z } from 'zod';

export const AREA_LIMITS = { pairs: 100, rows: 50, key: 255, value: 2000 } as const;

export interface Pair {
  key: string;
  value: string | number | boolean | null;
}

/** Rows of pairs as given (`rows`), or one flat list to lay out automatically (`flat`). */
export type Area = { kind: 'rows'; rows: Pair[][] } | { kind: 'flat'; pairs: Pair[] };

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]).or(z.unknown().transform((v) => JSON.stringify(v)));
const pairs = z.record(z.string().max(AREA_LIMITS.key), scalar);
const toPairs = (o: Record<string, unknown>): Pair[] =>
  Object.entries(o).map(([key, value]) => ({ key: ownKey(key), value: typeof value === 'string' ? value.slice(0, AREA_LIMITS.value) : (value as Pair['value']) }));

// A pair keyed "__proto__" is a pair like any other, but zod's record (and Object.assign) copy an
// object by assignment, which hands that key to the prototype setter and drops the pair. So keys
// travel through the schema marked: "__proto__" and any key starting with NUL get a NUL in front,
// which toPairs takes off again (such a key may so be one character shorter than AREA_LIMITS.key).
const MARK = '\u0000';
const marked = (raw: unknown): unknown => {
  if (Array.isArray(raw)) return raw.map(marked);
  if (raw === null || typeof raw !== 'object') return raw;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) out[k === '__proto__' || k.startsWith(MARK) ? MARK + k : k] = v;
  return out;
};
const ownKey = (k: string): string => (k.startsWith(MARK) ? k.slice(1) : k);

/**
 * `{"油站": "钓鱼岛", "姓名": "张三"}` is a flat list; `[{"油站": "钓鱼岛", "日期": "4月3日"}, {"操作员": "松林"}]`
 * (the design's PHP `[[k => v, …], […]]`) is two rows; `[[{"a": 1}, {"b": 2}], [{"c": 3}]]` too.
 */
export const areaSchema = z.preprocess(
  marked,
  z
    .union(
      [
        pairs.transform((o): Area => ({ kind: 'flat', pairs: toPairs(o) })),
        z.array(z.union([pairs, z.array(pairs).transform((list) => Object.assign({}, ...list) as Record<string, unknown>)])).transform(
          (rows): Area => ({ kind: 'rows', rows: rows.map(toPairs).filter((r) => r.length > 0) }),
        ),
      ],
      { error: 'must be an object of key/value pairs, or an array of rows of such objects' },
    )
    .superRefine((a, ctx) => {
      const n = a.kind === 'flat' ? a.pairs.length : a.rows.reduce((s, r) => s + r.length, 0);
      if (n > AREA_LIMITS.pairs) ctx.addIssue({ code: 'custom', message: `has ${n} pairs; at most ${AREA_LIMITS.pairs}` });
      if (a.kind === 'rows' && a.rows.length > AREA_LIMITS.rows) ctx.addIssue({ code: 'custom', message: `has ${a.rows.length} rows; at most ${AREA_LIMITS.rows}` });
    }),
);

export interface AreaCell {
  col: number;
  span: number;
  text: string | number | boolean | null;
  role: 'key' | 'value' | 'pair';
}

/** Splits `total` columns into `parts` spans as evenly as possible, wider ones first. */
export function spread(total: number, parts: number): number[] {
  const base = Math.floor(total / parts);
  return Array.from({ length: parts }, (_, i) => base + (i < total % parts ? 1 : 0));
}

/** Lays out one row of pairs across `width` columns: each pair a key cell and a value cell. */
function layoutRow(row: Pair[], width: number): AreaCell[][] {
  // Too many pairs to give each two columns: wrap onto further rows (one column each at width 1).
  const fit = Math.max(1, Math.floor(width / 2));
  if (row.length > fit) {
    const out: AreaCell[][] = [];
    for (let i = 0; i < row.length; i += fit) out.push(...layoutRow(row.slice(i, i + fit), width));
    return out;
  }
  const cells: AreaCell[] = [];
  let col = 0;
  spread(width, row.length).forEach((span, i) => {
    const p = row[i]!;
    if (span < 2) {
      cells.push({ col, span, text: `${p.key}：${p.value ?? ''}`, role: 'pair' });
    } else {
      const keySpan = Math.floor(span / 2);
      cells.push({ col, span: keySpan, text: p.key, role: 'key' });
      cells.push({ col: col + keySpan, span: span - keySpan, text: p.value, role: 'value' });
    }
    col += span;
  });
  return [cells];
}

/**
 * The automatic layout of a flat list: at most 4 pairs a row and pairs × 2 ≤ width, spread
 * evenly over as few rows as that allows, so a shorter row (odd count) comes last.
 */
export function autoRows(list: Pair[], width: number): Pair[][] {
  if (list.length === 0) return [];
  const perRow = Math.max(1, Math.min(4, Math.floor(width / 2)));
  const rows = Math.ceil(list.length / perRow);
  const sizes = spread(list.length, rows);
  const out: Pair[][] = [];
  let i = 0;
  for (const n of sizes) {
    out.push(list.slice(i, i + n));
    i += n;
  }
  return out;
}

export function layoutArea(area: Area | undefined, width: number): AreaCell[][] {
  if (!area) return [];
  const rows = area.kind === 'flat' ? autoRows(area.pairs, width) : area.rows;
  return rows.flatMap((r) => layoutRow(r, width));
}

/** A header or footer from the task or the source; anything malformed is reported, not guessed. */
export function parseArea(raw: unknown): { ok: true; area: Area | undefined } | { ok: false; message: string } {
  if (raw === undefined || raw === null) return { ok: true, area: undefined };
  const r = areaSchema.safeParse(raw);
  if (r.success) return { ok: true, area: r.data };
  const i = r.error.issues[0]!;
  return { ok: false, message: `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}` };
}

const pairList = z.array(z.object({ key: z.string(), value: z.union([z.string(), z.number(), z.boolean(), z.null()]) }));
/**
 * An area as the API stores it (areaSchema's output): jsonb does not keep object key order, and
 * the order of the pairs is the layout, so they are kept in arrays.
 */
export const storedArea = z.union([z.object({ kind: z.literal('flat'), pairs: pairList }), z.object({ kind: z.literal('rows'), rows: z.array(pairList) })]);
