import type { Database } from '@docgen/db';

interface PlanNode {
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Every row a plan node produced or filtered out, over all its loops. */
function rowsTouched(node: PlanNode): number {
  const removed = (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Join Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
  return (node['Actual Rows'] + removed) * node['Actual Loops'] + (node.Plans ?? []).reduce((sum, child) => sum + rowsTouched(child), 0);
}

/**
 * The rows a statement reads when it runs (EXPLAIN ANALYZE: every row each plan node produced
 * or filtered out): the work it does, counted rather than timed, so a test can say that a
 * sweep reads what is open and not the whole table. Analyze the tables first.
 */
export async function rowsRead(db: Database, statement: { text: string }, values: unknown[] = []): Promise<number> {
  const [explained] = await db.sql.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>({ text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}` }, values);
  return rowsTouched(explained!['QUERY PLAN'][0]!.Plan);
}
