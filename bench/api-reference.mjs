// The machine's limit for target 5: a bare Node `http` server with a `pg` pool of the API's
// size, answering the three measured requests with the same SQL as Orbit's read model (named
// prepared statements; each execution's JSON made by orbit_execution_json) and sending it as it is. No
// framework, no auth, no validation. Env: DATABASE_URL, PORT. Prints "ready" when it listens.
import { createServer } from 'node:http';
import pg from 'pg';

const SELECT = 'SELECT orbit_execution_json(e) AS json FROM executions e';
const ORDER = 'ORDER BY created_at DESC, id DESC';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

async function answer(url) {
  const byId = /^\/executions\/([0-9a-f-]{36})$/.exec(url.pathname);
  if (byId) {
    const { rows } = await pool.query({ name: 'by-id', text: `${SELECT} WHERE id = $1`, values: [byId[1]] });
    return rows[0] ? [200, rows[0].json] : [404, '{"message":"not found"}'];
  }
  if (url.pathname !== '/executions') return [404, '{"message":"not found"}'];
  const jobId = url.searchParams.get('jobId');
  const limit = Math.floor(Number(url.searchParams.get('limit') ?? 50));
  // the limit written into the statement, as Orbit writes it: with the limit a parameter, PostgreSQL
  // plans each call anew across the history's days, its kept plan looking dearer
  const cursor = url.searchParams.get('cursor');
  const after = cursor ? Buffer.from(cursor, 'base64url').toString('utf8').split('|') : null;
  const { rows } = await pool.query(
    after
      ? {
          name: `page-${limit}`,
          text: `${SELECT} WHERE job_id = $1 AND (created_at, id) < ($2, $3) ${ORDER} LIMIT ${limit + 1}`,
          values: [jobId, after[0], after[1]],
        }
      : {
          name: `first-page-${limit}`,
          text: `${SELECT} WHERE job_id = $1 ${ORDER} LIMIT ${limit + 1}`,
          values: [jobId],
        },
  );
  const items = rows.slice(0, limit);
  const last = rows.length > limit ? items[items.length - 1] : null;
  const next = last ? JSON.parse(last.json) : null;
  const nextCursor = next ? Buffer.from(`${next.createdAt}|${next.id}`).toString('base64url') : null;
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
