import { Injectable } from '@nestjs/common';
import { StaleWriteError } from '../../shared/domain/domain-errors.js';
import { Database } from '../../shared/infrastructure/database.js';
import { ExecutionRepository, LeaseRenewal } from '../application/execution.repository.js';
import { Execution } from '../domain/execution.js';
import { ExecutionStatus, TRANSITIONS } from '../domain/execution-status.js';
import { ExecutionMapper } from './execution.mapper.js';
import { ExecutionOrmEntity } from './execution.orm-entity.js';

@Injectable()
export class TypeOrmExecutionRepository extends ExecutionRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async insert(execution: Execution): Promise<void> {
    await this.insertAll([execution]);
  }

  async insertAll(executions: Execution[]): Promise<void> {
    if (executions.length === 0) return;
    await this.db.rows(
      `INSERT INTO executions (${INSERTED}) SELECT * FROM unnest(${INSERTED_TYPES})`,
      inserted(executions),
    );
  }

  async save(execution: Execution): Promise<void> {
    const [stale] = await this.saveAll([execution]);
    if (stale) throw new StaleWriteError(`Execution ${stale.id} was changed by someone else; read it again`);
  }

  async saveAll(executions: Execution[], leaseExpiresAt: Date | null = null): Promise<Execution[]> {
    if (executions.length === 0) return [];
    const props = executions.map((e) => e.toProps());
    // a lease belongs to a running execution only: a worker sets its own when it claims, an outside runner has none
    const written = await this.db.rows<{ id: string }>(
      `UPDATE executions e
       SET status = v.status, started_at = v.started_at, finished_at = v.finished_at, exit_code = v.exit_code,
           error_message = v.error_message, worker_id = v.worker_id, version = e.version + 1,
           lease_expires_at = CASE WHEN v.status = 'RUNNING' THEN coalesce($9, e.lease_expires_at) END
       FROM unnest($1::uuid[], $2::int[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::int[], $7::text[],
                   $8::text[]) AS v(id, version, status, started_at, finished_at, exit_code, error_message, worker_id)
       WHERE e.id = v.id AND e.version = v.version
       RETURNING e.id`,
      [
        props.map((p) => p.id),
        props.map((p) => p.version),
        props.map((p) => p.status),
        props.map((p) => p.startedAt),
        props.map((p) => p.finishedAt),
        props.map((p) => p.exitCode),
        props.map((p) => p.errorMessage),
        props.map((p) => p.workerId),
        leaseExpiresAt,
      ],
    );
    const landed = new Set(written.map((row) => row.id));
    const stale: Execution[] = [];
    for (const execution of executions) {
      if (landed.has(execution.id)) execution.persisted();
      else stale.push(execution);
    }
    return stale;
  }

  async findById(id: string): Promise<Execution | null> {
    const rows = await this.db.rows<ExecutionOrmEntity>(`SELECT ${SELECTED} FROM executions WHERE id = $1`, [id]);
    return rows[0] ? ExecutionMapper.toDomain(rows[0]) : null;
  }

  async findActiveByJob(jobId: string): Promise<Execution[]> {
    const query = this.repo()
      .createQueryBuilder('e')
      .where('e.job_id = :jobId AND e.status IN (:...active)', { jobId, active: TRANSITIONS.cancel.from });
    if (this.db.inTransaction()) query.setLock('pessimistic_write');
    const rows = await query.getMany();
    return rows.map(ExecutionMapper.toDomain);
  }

  async insertScheduled(execution: Execution): Promise<boolean> {
    const result = await this.repo()
      .createQueryBuilder()
      .insert()
      .values(ExecutionMapper.toRow(execution))
      .orIgnore()
      .returning('id')
      .execute();
    return (result.raw as unknown[]).length === 1;
  }

  async lockDue(now: Date, limit: number): Promise<Execution[]> {
    const rows = await this.db.rows<ExecutionOrmEntity>(
      `SELECT ${SELECTED} FROM executions WHERE status = 'QUEUED' AND due_at <= $1
       ORDER BY due_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    return rows.map(ExecutionMapper.toDomain);
  }

  async saveClaimed(executions: Execution[], leaseExpiresAt: Date): Promise<void> {
    const [stale] = await this.saveAll(executions, leaseExpiresAt);
    if (stale) throw new StaleWriteError(`Execution ${stale.id} was changed while being claimed`);
  }

  async renewLeases(workerId: string, ids: string[], leaseExpiresAt: Date): Promise<LeaseRenewal> {
    if (ids.length === 0) return { renewed: [], held: [] };
    // rows a writer holds are skipped, not waited for: the worker's own cycle holds some while it
    // records their outcomes, and a heartbeat that waited for them deadlocked with it. The final
    // SELECT sees the rows as committed when the statement began, the skipped ones included.
    const rows = await this.db.rows<{ id: string; renewed: boolean }>(
      `WITH renewed AS (
         UPDATE executions SET lease_expires_at = $1
          WHERE id IN (SELECT id FROM executions WHERE id = ANY($2::uuid[]) AND worker_id = $3 AND status = 'RUNNING'
                       FOR NO KEY UPDATE SKIP LOCKED)
         RETURNING id)
       SELECT e.id, r.id IS NOT NULL AS renewed FROM executions e LEFT JOIN renewed r ON r.id = e.id
        WHERE e.id = ANY($2::uuid[]) AND e.worker_id = $3 AND e.status = 'RUNNING'`,
      [leaseExpiresAt, ids, workerId],
    );
    return {
      renewed: rows.filter((row) => row.renewed).map((row) => row.id),
      held: rows.filter((row) => !row.renewed).map((row) => row.id),
    };
  }

  lockExpiredLeases(now: Date, limit: number): Promise<Execution[]> {
    return this.lockRunning('e.worker_id IS NOT NULL AND e.lease_expires_at < :now', now, limit);
  }

  lockTimedOutOutsideRuns(now: Date, limit: number): Promise<Execution[]> {
    return this.lockRunning(
      "e.worker_id IS NULL AND e.started_at + e.timeout_seconds * interval '1 second' <= :now",
      now,
      limit,
    );
  }

  async earliestDue(): Promise<Date | null> {
    const [row] = await this.db.rows<{ due: Date | null }>(
      `SELECT min(due_at) AS due FROM executions WHERE status = 'QUEUED'`,
    );
    return row?.due ?? null;
  }

  private async lockRunning(condition: string, now: Date, limit: number): Promise<Execution[]> {
    const rows = await this.repo()
      .createQueryBuilder('e')
      .where(`e.status = :running AND ${condition}`, { running: ExecutionStatus.RUNNING, now })
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
    return rows.map(ExecutionMapper.toDomain);
  }

  private repo() {
    return this.db.manager().getRepository(ExecutionOrmEntity);
  }

  async insertScheduledMany(executions: Execution[]): Promise<number> {
    if (executions.length === 0) return 0;
    const rows = executions.map((execution) => ExecutionMapper.toRow(execution));
    const column = <K extends keyof ExecutionOrmEntity>(key: K) => rows.map((row) => row[key]);
    // the arbiter is executions_job_slot_key alone: any other violation still fails the pass
    const inserted = await this.db.rows<{ id: string }>(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger,
         scheduled_for, retry_of, due_at, created_at, started_at, finished_at, exit_code, error_message, worker_id,
         lease_expires_at, version)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::int[], $5::int[], $6::text[], $7::int[],
         $8::text[], $9::timestamptz[], $10::uuid[], $11::timestamptz[], $12::timestamptz[], $13::timestamptz[],
         $14::timestamptz[], $15::int[], $16::text[], $17::text[], $18::timestamptz[], $19::int[])
       ON CONFLICT (job_id, scheduled_for) WHERE trigger = 'SCHEDULE' DO NOTHING
       RETURNING id`,
      [
        column('id'),
        column('jobId'),
        column('command'),
        column('maxRetries'),
        column('timeoutSeconds'),
        column('status'),
        column('attempt'),
        column('trigger'),
        column('scheduledFor'),
        column('retryOf'),
        column('dueAt'),
        column('createdAt'),
        column('startedAt'),
        column('finishedAt'),
        column('exitCode'),
        column('errorMessage'),
        column('workerId'),
        column('leaseExpiresAt'),
        column('version'),
      ],
    );
    return inserted.length;
  }
}

/** The columns of an execution row, named as the entity's fields, for raw SQL. */
const SELECTED = `id, job_id AS "jobId", command, max_retries AS "maxRetries", timeout_seconds AS "timeoutSeconds",
  status, attempt, trigger, scheduled_for AS "scheduledFor", retry_of AS "retryOf", due_at AS "dueAt",
  created_at AS "createdAt", started_at AS "startedAt", finished_at AS "finishedAt", exit_code AS "exitCode",
  error_message AS "errorMessage", worker_id AS "workerId", version`;

const INSERTED = `id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, scheduled_for, retry_of,
  due_at, created_at, started_at, finished_at, exit_code, error_message, worker_id, version`;
const INSERTED_TYPES = `$1::uuid[], $2::uuid[], $3::text[], $4::int[], $5::int[], $6::text[], $7::int[], $8::text[],
  $9::timestamptz[], $10::uuid[], $11::timestamptz[], $12::timestamptz[], $13::timestamptz[], $14::timestamptz[],
  $15::int[], $16::text[], $17::text[], $18::int[]`;

/** The parameters of INSERTED_TYPES: one array per column, in the order of INSERTED. */
function inserted(executions: Execution[]): unknown[][] {
  const props = executions.map((e) => e.toProps());
  return [
    props.map((p) => p.id),
    props.map((p) => p.jobId),
    props.map((p) => p.command),
    props.map((p) => p.maxRetries),
    props.map((p) => p.timeoutSeconds),
    props.map((p) => p.status),
    props.map((p) => p.attempt),
    props.map((p) => p.trigger),
    props.map((p) => p.scheduledFor),
    props.map((p) => p.retryOf),
    props.map((p) => p.dueAt),
    props.map((p) => p.createdAt),
    props.map((p) => p.startedAt),
    props.map((p) => p.finishedAt),
    props.map((p) => p.exitCode),
    props.map((p) => p.errorMessage),
    props.map((p) => p.workerId),
    props.map((p) => p.version),
  ];
}
