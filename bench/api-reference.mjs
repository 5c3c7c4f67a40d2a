// The machine's limit for target 5: a bare Node `http` server with a `pg` pool of the API's
// size, answering the three measured requests with the same SQL as Orbit's repository (named
// prepared statements, the same columns), rows as JSON. No framework, no auth, no validation,
// no domain objects. Env: DATABASE_URL, PORT. Prints "ready" when it listens.
import { createServer } from 'node:http';
import pg from 'pg';

const COLUMNS = `id, job_id AS "jobId", command, max_retries AS "maxRetries", timeout_seconds AS "timeoutSeconds",
  status, attempt, trigger, scheduled_for AS "scheduledFor", retry_of AS "retryOf", due_at AS "dueAt",
  created_at AS "createdAt", started_at AS "startedAt", finished_at AS "finishedAt", exit_code AS "exitCode",
  error_message AS "errorMessage", worker_id AS "workerId", version`;
const ORDER = 'ORDER BY created_at DESC, id DESC';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

async function answer(url) {
  const byId = /^\/executions\/([0-9a-f-]{36})$/.exec(url.pathname);
  if (byId) {
    const { rows } = await pool.query({
      name: 'by-id',
      text: `SELECT ${COLUMNS} FROM executions WHERE id = $1`,
      values: [byId[1]],
    });
    return rows[0] ? [200, rows[0]] : [404, { message: 'not found' }];
  }
  if (url.pathname !== '/executions') return [404, { message: 'not found' }];
  const jobId = url.searchParams.get('jobId');
  const limit = Number(url.searchParams.get('limit') ?? 50);
  const cursor = url.searchParams.get('cursor');
  const after = cursor ? Buffer.from(cursor, 'base64url').toString('utf8').split('|') : null;
  const { rows } = await pool.query(
    after
      ? {
          name: 'page',
          text: `SELECT ${COLUMNS} FROM executions WHERE job_id = $1 AND (created_at, id) < ($2, $3) ${ORDER} LIMIT $4`,
          values: [jobId, after[0], after[1], limit + 1],
        }
      : {
          name: 'first-page',
          text: `SELECT ${COLUMNS} FROM executions WHERE job_id = $1 ${ORDER} LIMIT $2`,
          values: [jobId, limit + 1],
        },
  );
  const items = rows.slice(0, limit);
  const last = rows.length > limit ? items[items.length - 1] : null;
  const nextCursor = last ? Buffer.from(`${last.createdAt.toISOString()}|${last.id}`).toString('base64url') : null;
  return [200, { items, nextCursor }];
}

createServer((request, response) => {
  answer(new URL(request.url, 'http://reference'))
    .catch((error) => [500, { message: String(error) }])
    .then(([status, body]) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(body));
    });
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
