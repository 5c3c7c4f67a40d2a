/**
 * EXPLAIN (ANALYZE, BUFFERS) of a statement exactly as a client sent it: prepared from its own
 * text (so PostgreSQL infers the same parameter types) and executed once with the captured
 * values (a custom plan, as for the unnamed statements node-postgres sends), inside a
 * transaction that is rolled back.
 */
import type pg from 'pg';
import type { CapturedStatement } from './pg-capture.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

interface ExplainJson {
  Plan: PlanNode;
  'Planning Time': number;
  'Execution Time': number;
}

export interface Scan {
  node: string;
  relation: string;
  index: string | null;
}

export interface ExplainedStatement {
  sql: string;
  params: (string | null)[];
  /** The plan's nodes, top down, e.g. `Index Scan using executions_job_newest_idx on executions`. */
  nodes: string[];
  scans: Scan[];
  /** No sequential scan of a table. */
  indexOnly: boolean;
  executionMs: number;
  planningMs: number;
  /** Shared buffers the execution touched (hit or read): its cost on any machine. */
  buffers: number;
  text: string;
  json: unknown;
  /** When the plan scans a small table sequentially: the same statement with enable_seqscan off. */
  withoutSeqScan?: { nodes: string[]; text: string };
}

/** Statements worth a plan: reads and writes, not transaction control or settings. */
export function isPlannable(statement: CapturedStatement): boolean {
  return /^\s*(SELECT|WITH|INSERT|UPDATE|DELETE)\b/i.test(statement.sql) && !/^\s*SELECT\s+1\s*$/i.test(statement.sql);
}

export async function explain(db: pg.Client, statement: CapturedStatement): Promise<ExplainedStatement> {
  const json = (await run(db, statement, 'ANALYZE, BUFFERS, FORMAT JSON')) as ExplainJson[];
  const text = (await run(db, statement, 'ANALYZE, BUFFERS')) as string;
  const root = json[0]!;
  const nodes: string[] = [];
  const scans: Scan[] = [];
  walk(root.Plan, nodes, scans);
  const explained: ExplainedStatement = {
    sql: statement.sql,
    params: statement.params,
    nodes,
    scans,
    indexOnly: !scans.some((scan) => scan.node === 'Seq Scan'),
    executionMs: root['Execution Time'],
    planningMs: root['Planning Time'],
    buffers: (root.Plan['Shared Hit Blocks'] ?? 0) + (root.Plan['Shared Read Blocks'] ?? 0),
    text,
    json,
  };
  if (!explained.indexOnly) {
    const forced = (await run(db, statement, 'ANALYZE, BUFFERS, FORMAT JSON', true)) as ExplainJson[];
    const forcedNodes: string[] = [];
    walk(forced[0]!.Plan, forcedNodes, []);
    explained.withoutSeqScan = {
      nodes: forcedNodes,
      text: (await run(db, statement, 'ANALYZE, BUFFERS', true)) as string,
    };
  }
  return explained;
}

async function run(db: pg.Client, statement: CapturedStatement, options: string, noSeqScan = false): Promise<unknown> {
  const args = statement.params.map((p) => (p === null ? 'NULL' : db.escapeLiteral(p)));
  await db.query(`PREPARE bench_explain AS ${statement.sql}`);
  try {
    await db.query('BEGIN');
    try {
      if (noSeqScan) await db.query('SET LOCAL enable_seqscan = off');
      const { rows } = await db.query<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (${options}) EXECUTE bench_explain${args.length > 0 ? `(${args.join(', ')})` : ''}`,
      );
      return options.includes('JSON') ? rows[0]!['QUERY PLAN'] : rows.map((r) => String(r['QUERY PLAN'])).join('\n');
    } finally {
      await db.query('ROLLBACK');
    }
  } finally {
    await db.query('DEALLOCATE bench_explain');
  }
}

function walk(node: PlanNode, nodes: string[], scans: Scan[]): void {
  const relation = node['Relation Name'];
  const index = node['Index Name'];
  nodes.push(`${node['Node Type']}${index ? ` using ${index}` : ''}${relation ? ` on ${relation}` : ''}`);
  if (relation) scans.push({ node: node['Node Type'], relation, index: index ?? null });
  for (const child of node.Plans ?? []) walk(child, nodes, scans);
}
