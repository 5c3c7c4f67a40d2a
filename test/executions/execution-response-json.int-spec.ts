import { DECORATORS } from '@nestjs/swagger';
import { DataSource, QueryRunner } from 'typeorm';
import { Execution } from '../../src/executions/domain/execution.js';
import { ExecutionResponse } from '../../src/executions/http/dto/execution.response.js';
import { EXECUTION_COLUMNS } from '../../src/executions/infrastructure/execution.columns.js';
import { replaceExecutionResponseJson, ResponseField } from '../support/execution-response-json.js';
import { closeMigratable, migratableDatabase } from '../support/migrations.js';
import { TestDatabase } from '../support/test-database.js';

const T0 = new Date('2026-11-30T10:00:00.000Z');

/** ExecutionResponse's fields in its order, as `from` writes them. */
const responseFields = Object.keys(
  ExecutionResponse.from(
    Execution.create({ jobId: 'j', command: 'true', maxRetries: 0, timeoutSeconds: 1, maxDurationSeconds: null }, T0),
  ),
) as (typeof EXECUTION_COLUMNS.fields)[number][];

/** What the migrations left in the database for an execution's JSON, whitespace in function bodies aside. */
async function responseJsonSchema(db: QueryRunner): Promise<unknown> {
  const [row] = (await db.query(`
    SELECT (SELECT json_agg(json_build_array(a.attname, format_type(a.atttypid, a.atttypmod)) ORDER BY a.attnum)
              FROM pg_attribute a
             WHERE a.attrelid = 'orbit_execution_response'::regclass AND a.attnum > 0 AND NOT a.attisdropped) AS type,
           (SELECT regexp_replace(prosrc, '\\s+', ' ', 'g') FROM pg_proc WHERE proname = 'orbit_execution_json') AS json`)) as [
    unknown,
  ];
  return row;
}

/** What once stored the JSON, and must be gone: the column, its writer and its triggers. */
async function storedJsonLeft(db: QueryRunner): Promise<unknown[]> {
  return (await db.query(`
    SELECT attname AS name FROM pg_attribute
     WHERE attrelid = 'executions'::regclass AND attname = 'response_json' AND NOT attisdropped
    UNION ALL SELECT proname FROM pg_proc WHERE proname = 'orbit_write_execution_json'
    UNION ALL SELECT tgname FROM pg_trigger WHERE tgname LIKE 'executions_write_response_json%'`)) as unknown[];
}

async function storedExecution(db: QueryRunner): Promise<string> {
  const [job] = (await db.query(
    `INSERT INTO jobs (id, name, command, cron_expression, timezone, max_retries, timeout_seconds, enabled,
       misfire_policy, concurrency_policy, created_at, updated_at)
     VALUES (gen_random_uuid(), 'json', 'true', '* * * * *', 'UTC', 0, 60, false, 'RUN_ONCE', 'ALLOW', $1, $1)
     RETURNING id`,
    [T0],
  )) as [{ id: string }];
  const [execution] = (await db.query(
    `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger,
       due_at, created_at, version)
     VALUES (gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', $2, $2, 1) RETURNING id`,
    [job.id, T0],
  )) as [{ id: string }];
  return execution.id;
}

/** What the read model sends for an execution. */
async function json(db: QueryRunner, id: string): Promise<string> {
  const [row] = (await db.query(`SELECT orbit_execution_json(e) AS read FROM executions e WHERE id = $1`, [id])) as [
    { read: string },
  ];
  return row.read;
}

describe("an execution's API fields", () => {
  let db: TestDatabase;
  let source: DataSource;

  beforeAll(async () => {
    ({ db, source } = await migratableDatabase());
  });
  afterAll(() => closeMigratable(db, source));

  it('are the same in ExecutionResponse, its Swagger schema and the executions registry', () => {
    const documented = (
      Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, ExecutionResponse.prototype) as string[]
    ).map((property) => property.replace(/^:/, ''));
    expect(documented).toEqual(responseFields);
    expect(EXECUTION_COLUMNS.fields).toEqual(expect.arrayContaining(responseFields));
  });

  it("are what the migrations made the database's JSON of, with the registry's column types", async () => {
    const runner = source.createQueryRunner();
    try {
      const migrated = (await responseJsonSchema(runner)) as { type: [string, string][] };
      expect(migrated.type).toEqual(
        responseFields.map((field) => {
          const type = EXECUTION_COLUMNS.type(field);
          return [field, type === 'timestamptz' ? 'text' : type];
        }),
      );

      // the SQL a migration that changes the fields writes out, given today's, makes what the migrations made
      const fields: ResponseField[] = responseFields.map((field) => [
        field,
        EXECUTION_COLUMNS.column(field),
        EXECUTION_COLUMNS.type(field),
      ]);
      await runner.startTransaction();
      try {
        const id = await storedExecution(runner);
        const queued = await json(runner, id);
        expect(await storedJsonLeft(runner)).toEqual([]);

        await replaceExecutionResponseJson(runner, fields);
        expect(await responseJsonSchema(runner)).toEqual(migrated);
        expect(await json(runner, id)).toEqual(queued);
        // a finished run's JSON is made as it is read, as a queued one's
        await runner.query(`UPDATE executions SET status = 'CANCELLED', finished_at = $2 WHERE id = $1`, [id, T0]);
        expect(JSON.parse(await json(runner, id))).toEqual({
          ...JSON.parse(queued),
          status: 'CANCELLED',
          finishedAt: T0.toISOString(),
        });
      } finally {
        await runner.rollbackTransaction();
      }
    } finally {
      await runner.release();
    }
  });
});
