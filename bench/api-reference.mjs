// The machine's limit for target 5: a bare Node `http` server with a `pg` pool of the API's
// size, answering the three measured requests with the same SQL as Orbit's read model (named
// prepared statements; PostgreSQL writes each execution's JSON) and sending it as it is. No
// framework, no auth, no validation. Env: DATABASE_URL, PORT. Prints "ready" when it listens.
import { createServer } from 'node:http';
import pg from 'pg';

const iso = (column) => `to_char(e.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const VIEW = `LATERAL (SELECT e.id, e.job_id AS "jobId", e.command, e.max_retries AS "maxRetries",
  e.timeout_seconds AS "timeoutSeconds", e.status, e.attempt, e.trigger, ${iso('scheduled_for')} AS "scheduledFor",
  e.retry_of AS "retryOf", ${iso('due_at')} AS "dueAt", ${iso('created_at')} AS "createdAt",
  ${iso('started_at')} AS "startedAt", ${iso('finished_at')} AS "finishedAt", e.exit_code AS "exitCode",
  e.error_message AS "errorMessage", e.worker_id AS "workerId") v`;
const SELECT = `SELECT row_to_json(v)::text AS json, e.created_at AS "createdAt", e.id FROM executions e, ${VIEW}`;
const ORDER = 'ORDER BY e.created_at DESC, e.id DESC';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

async function answer(url) {
  const byId = /^\/executions\/([0-9a-f-]{36})$/.exec(url.pathname);
  if (byId) {
    const { rows } = await pool.query({ name: 'by-id', text: `${SELECT} WHERE e.id = $1`, values: [byId[1]] });
    return rows[0] ? [200, rows[0].json] : [404, '{"message":"not found"}'];
  }
  if (url.pathname !== '/executions') return [404, '{"message":"not found"}'];
  const jobId = url.searchParams.get('jobId');
  const limit = Number(url.searchParams.get('limit') ?? 50);
  const cursor = url.searchParams.get('cursor');
  const after = cursor ? Buffer.from(cursor, 'base64url').toString('utf8').split('|') : null;
  const { rows } = await pool.query(
    after
      ? {
          name: 'page',
          text: `${SELECT} WHERE e.job_id = $1 AND (e.created_at, e.id) < ($2, $3) ${ORDER} LIMIT $4`,
          values: [jobId, after[0], after[1], limit + 1],
        }
      : { name: 'first-page', text: `${SELECT} WHERE e.job_id = $1 ${ORDER} LIMIT $2`, values: [jobId, limit + 1] },
  );
  const items = rows.slice(0, limit);
  const last = rows.length > limit ? items[items.length - 1] : null;
  const nextCursor = last ? Buffer.from(`${last.createdAt.toISOString()}|${last.id}`).toString('base64url') : null;
  return [200, `{"items":[${items.map((row) => row.json).join(',')}],"nextCursor":${JSON.stringify(nextCursor)}}`];
}

createServer((request, response) => {
  answer(new URL(request.url, 'http://reference'))
    .catch((error) => [500, JSON.stringify({ message: String(error) })])
    .then(([status, body]) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(body);
    });
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
