import type pg from 'pg';

type Sql = (text: string, params?: unknown[]) => Promise<pg.QueryResult>;

async function rolledBack<T>(sql: Sql, work: () => Promise<T>): Promise<T> {
  await sql('BEGIN');
  try {
    return await work();
  } finally {
    await sql('ROLLBACK');
  }
}

/**
 * The shared buffers a statement touched and the rows it answered, counted on its second run
 * (the first plans what it calls), each in a transaction rolled back. Buffers, unlike times, do
 * not depend on the machine's speed.
 */
export async function planCost(
  sql: Sql,
  statement: string,
  params: unknown[] = [],
): Promise<{ buffers: number; rows: number }> {
  await rolledBack(sql, () => sql(statement, params));
  const { rows } = await rolledBack(sql, () => sql(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement}`, params));
  type Node = { 'Shared Hit Blocks': number; 'Shared Read Blocks': number; 'Actual Rows': number };
  const plan = (rows[0] as { 'QUERY PLAN': [{ Plan: Node }] })['QUERY PLAN'][0].Plan;
  return { buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'], rows: plan['Actual Rows'] };
}
