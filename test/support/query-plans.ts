// The plans the list-cost tests read: Postgres's `explain (analyze, format json)` of a drizzle
// query, flattened to its nodes, so a test can say which index served it and how many rows it read.
import type postgres from 'postgres';

export type Plan = { 'Node Type': string; 'Index Name'?: string; 'Actual Rows': number; 'Rows Removed by Filter'?: number; Plans?: Plan[] };

const nodes = (p: Plan): Plan[] => [p, ...(p.Plans ?? []).flatMap(nodes)];

/** Every node of the query's executed plan, the root first. */
export async function planOf(raw: postgres.Sql, query: { toSQL(): { sql: string; params: unknown[] } }): Promise<Plan[]> {
  const { sql, params } = query.toSQL();
  const [row] = await raw.unsafe(`explain (analyze, format json) ${sql}`, params as never[]);
  return nodes((row!['QUERY PLAN'] as Array<{ Plan: Plan }>)[0]!.Plan);
}
