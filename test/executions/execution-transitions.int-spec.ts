import { randomUUID } from 'node:crypto';
import { allowedEdges, EXECUTION_STATUSES, ExecutionStatus } from '../../src/executions/domain/execution-status.js';
import { createTestDatabase, insertJob, TestDatabase } from '../support/test-database.js';

/** A row of each status, shaped as the CHECK constraints want it. */
const SHAPES: Record<ExecutionStatus, string> = {
  QUEUED: `started_at = NULL, finished_at = NULL, exit_code = NULL, error_message = NULL, worker_id = NULL`,
  RUNNING: `started_at = now(), finished_at = NULL, exit_code = NULL, error_message = NULL`,
  SUCCEEDED: `started_at = now(), finished_at = now(), exit_code = 0, error_message = NULL`,
  FAILED: `started_at = now(), finished_at = now(), exit_code = 1, error_message = 'boom'`,
  CANCELLED: `finished_at = now(), exit_code = NULL, error_message = NULL`,
};

describe('the database knows the lifecycle too', () => {
  let db: TestDatabase;
  let jobId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    jobId = randomUUID();
    await insertJob(db, { id: jobId, name: 'j', cronExpression: '* * * * *', enabled: true });
  });
  afterAll(async () => {
    await db.drop();
  });

  it("the trigger's table of allowed edges is exactly the domain's", async () => {
    const { rows } = await db.sql('SELECT from_status, to_status FROM execution_transitions');
    const stored = rows.map((r: { from_status: string; to_status: string }) => `${r.from_status}->${r.to_status}`);
    expect(stored.sort()).toEqual(
      allowedEdges()
        .map(([from, to]) => `${from}->${to}`)
        .sort(),
    );
  });

  const allowed = new Set(allowedEdges().map(([from, to]) => `${from}->${to}`));
  const pairs = EXECUTION_STATUSES.flatMap((from) =>
    EXECUTION_STATUSES.filter((to) => to !== from).map((to) => ({ from, to, legal: allowed.has(`${from}->${to}`) })),
  );

  it.each(pairs)(
    'an UPDATE by hand from $from to $to is allowed only when the domain allows it ($legal)',
    async ({ from, to, legal }) => {
      const id = randomUUID();
      await db.sql(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       VALUES ($1, $2, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now(), now())`,
        [id, jobId],
      );
      // reach `from` without the guard's permission, as a fixture: the trigger is off for this one write
      await db.sql('ALTER TABLE executions DISABLE TRIGGER executions_transition_guard');
      await db.sql(`UPDATE executions SET status = $2, ${SHAPES[from]} WHERE id = $1`, [id, from]);
      await db.sql('ALTER TABLE executions ENABLE TRIGGER executions_transition_guard');

      const move = db.sql(`UPDATE executions SET status = $2, ${SHAPES[to]} WHERE id = $1`, [id, to]);
      if (legal) {
        await expect(move).resolves.toMatchObject({ rowCount: 1 });
      } else {
        await expect(move).rejects.toMatchObject({
          constraint: 'executions_transition_check',
          message: `Illegal execution transition from ${from} to ${to}`,
        });
        const { rows } = await db.sql('SELECT status FROM executions WHERE id = $1', [id]);
        expect(rows[0].status).toBe(from);
      }
    },
  );
});
