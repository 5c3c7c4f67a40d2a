import { Injectable } from '@nestjs/common';
import { Page, PageRequest, toPage } from '../../shared/application/page.js';
import { Database } from '../../shared/infrastructure/database.js';
import {
  AttemptResult,
  DeliveryFilter,
  DeliveryRepository,
  DeliveryView,
  NewDelivery,
} from '../application/delivery.repository.js';
import { AttemptOutcome, ClaimedDelivery, DeliveryAttempt } from '../domain/delivery.js';
import { ALERT_JOB_STATE_COLUMNS } from './alert-job-state.columns.js';
import { DELIVERY_ATTEMPT_COLUMNS, DELIVERY_COLUMNS, DeliveryRow } from './delivery.columns.js';

/** The claim: the attempt counter moves on and the next attempt past the lease, in one statement. */
const CLAIM = (which: string) => `
  UPDATE deliveries d SET attempts = d.attempts + 1, next_attempt_at = $2::timestamptz + $3 * interval '1 millisecond'
    FROM (SELECT id FROM deliveries WHERE status = 'PENDING' AND ${which} FOR UPDATE SKIP LOCKED) due
   WHERE d.id = due.id
  RETURNING ${DELIVERY_COLUMNS.select(['id', 'channelId', 'event', 'payload', 'giveUpAt'], 'd')}, d.attempts AS attempt`;
const CLAIM_DUE = CLAIM(`next_attempt_at <= $2 ORDER BY next_attempt_at LIMIT $1`);
const CLAIM_ONE = CLAIM(`id = $1`);

const VIEW = `
  SELECT d.id, d.channel_id AS "channelId", c.name AS "channelName", c.team, d.event, d.job_id AS "jobId",
         d.execution_id AS "executionId", d.status, d.created_at AS "createdAt", d.finished_at AS "finishedAt",
         CASE WHEN d.status = 'PENDING' THEN d.next_attempt_at END AS "nextAttemptAt",
         coalesce((SELECT json_agg(json_build_object('attempt', a.attempt, 'at', a.at, 'httpStatus', a.http_status,
                    'smtpResponse', a.smtp_response, 'error', a.error, 'latencyMs', a.latency_ms) ORDER BY a.attempt)
                     FROM delivery_attempts a WHERE a.delivery_id = d.id), '[]') AS attempts
    FROM deliveries d JOIN channels c ON c.id = d.channel_id`;

/** What a new delivery writes: the rest (its attempts, its end) starts at the columns' defaults. */
const INSERTED = DELIVERY_COLUMNS.fields.filter((field) => field !== 'attempts' && field !== 'finishedAt');
const INSERT = `INSERT INTO deliveries (${DELIVERY_COLUMNS.names(INSERTED)})
  SELECT * FROM unnest(${DELIVERY_COLUMNS.arrays(INSERTED)})
  ON CONFLICT (event_seq, channel_id) DO NOTHING`;

const INSERT_ATTEMPT = `${DELIVERY_ATTEMPT_COLUMNS.insert()} ON CONFLICT DO NOTHING`;

const JOB_STATES = ALERT_JOB_STATE_COLUMNS.select(['jobId', 'failing']);
const SAVE_JOB_STATES = `INSERT INTO alert_job_states (${ALERT_JOB_STATE_COLUMNS.names()})
  SELECT * FROM unnest(${ALERT_JOB_STATE_COLUMNS.arrays()})
  ON CONFLICT (job_id) DO UPDATE SET failing = excluded.failing, updated_at = excluded.updated_at`;

type ViewRow = Omit<DeliveryView, 'attempts'> & {
  attempts: Array<Omit<DeliveryAttempt, 'at' | 'ok'> & { at: string }>;
};

const toView = (row: ViewRow): DeliveryView => ({
  ...row,
  attempts: row.attempts.map((a) => ({
    ...a,
    at: new Date(a.at),
    ok: a.httpStatus !== null ? a.httpStatus >= 200 && a.httpStatus < 300 : a.error === null,
  })),
});

@Injectable()
export class SqlDeliveryRepository extends DeliveryRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async insertAll(deliveries: readonly NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    // due at once
    const rows = deliveries.map((d): Omit<DeliveryRow, 'attempts' | 'finishedAt'> => ({
      ...d,
      status: 'PENDING',
      nextAttemptAt: d.createdAt,
    }));
    await this.db.rows(INSERT, DELIVERY_COLUMNS.values(rows, INSERTED));
  }

  claimDue(now: Date, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    return this.db.rows<ClaimedDelivery>(CLAIM_DUE, [limit, now, leaseMs]);
  }

  async claim(id: string, now: Date, leaseMs: number): Promise<ClaimedDelivery | null> {
    const [row] = await this.db.rows<ClaimedDelivery>(CLAIM_ONE, [id, now, leaseMs]);
    return row ?? null;
  }

  async recordAttempt(
    delivery: ClaimedDelivery,
    at: Date,
    outcome: AttemptOutcome,
    result: AttemptResult,
  ): Promise<void> {
    await this.db.run(async () => {
      await this.db.rows(
        INSERT_ATTEMPT,
        DELIVERY_ATTEMPT_COLUMNS.params({ ...outcome, deliveryId: delivery.id, attempt: delivery.attempt, at }),
      );
      // another node claimed it since (this one was too slow): its attempt decides
      await this.db.rows(
        `UPDATE deliveries SET status = $3, next_attempt_at = coalesce($4, next_attempt_at),
                finished_at = CASE WHEN $3 = 'PENDING' THEN NULL ELSE $5::timestamptz END
          WHERE id = $1 AND attempts = $2 AND status = 'PENDING'`,
        [delivery.id, delivery.attempt, result.status, result.nextAttemptAt, at],
      );
    });
  }

  async nextDue(): Promise<Date | null> {
    const [row] = await this.db.rows<{ next: Date | null }>(
      `SELECT min(next_attempt_at) AS next FROM deliveries WHERE status = 'PENDING'`,
    );
    return row?.next ?? null;
  }

  async findById(id: string): Promise<DeliveryView | null> {
    const [row] = await this.db.rows<ViewRow>(`${VIEW} WHERE d.id = $1`, [id]);
    return row ? toView(row) : null;
  }

  async list(filter: DeliveryFilter, page: PageRequest): Promise<Page<DeliveryView>> {
    const rows = await this.db.rows<ViewRow>(
      `${VIEW}
        WHERE ($1::uuid IS NULL OR d.channel_id = $1) AND ($2::uuid IS NULL OR d.job_id = $2)
          AND ($3::text IS NULL OR d.status = $3)
          AND ($4::timestamptz IS NULL OR (d.created_at, d.id) < ($4, $5::uuid))
          AND ($7::text[] IS NULL OR c.team = ANY ($7::text[]))
        ORDER BY d.created_at DESC, d.id DESC LIMIT $6`,
      [
        filter.channelId ?? null,
        filter.jobId ?? null,
        filter.status ?? null,
        page.cursor?.createdAt ?? null,
        page.cursor?.id ?? null,
        page.limit + 1,
        filter.teams ?? null,
      ],
    );
    return toPage(rows.map(toView), page.limit);
  }

  async failingStates(jobIds: readonly string[]): Promise<Map<string, boolean>> {
    const rows = await this.db.rows<{ jobId: string; failing: boolean }>(
      `SELECT ${JOB_STATES} FROM alert_job_states WHERE job_id = ANY ($1::uuid[])`,
      [jobIds],
    );
    return new Map(rows.map((row) => [row.jobId, row.failing]));
  }

  async pruneFinished(olderThan: Date, batchSize: number): Promise<number> {
    // deliveries_finished_idx; the attempts go with their delivery (ON DELETE CASCADE)
    const rows = await this.db.rows(
      `DELETE FROM deliveries WHERE id = ANY (ARRAY(
         SELECT id FROM deliveries WHERE finished_at < $1 AND status <> 'PENDING'
          ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED))
       RETURNING id`,
      [olderThan, Math.floor(batchSize)],
    );
    return rows.length;
  }

  staleJobStates(
    olderThan: Date,
    afterJobId: string | null,
    limit: number,
  ): Promise<{ jobId: string; failing: boolean }[]> {
    return this.db.rows(
      `SELECT ${JOB_STATES} FROM alert_job_states
        WHERE updated_at < $1 AND ($2::uuid IS NULL OR job_id > $2::uuid)
        ORDER BY job_id LIMIT $3`,
      [olderThan, afterJobId, Math.floor(limit)],
    );
  }

  async deleteJobStates(jobIds: readonly string[], olderThan: Date): Promise<number> {
    if (jobIds.length === 0) return 0;
    const rows = await this.db.rows(
      `DELETE FROM alert_job_states WHERE job_id = ANY ($1::uuid[]) AND updated_at < $2 RETURNING job_id`,
      [jobIds, olderThan],
    );
    return rows.length;
  }

  async saveFailingStates(states: ReadonlyMap<string, boolean>, now: Date): Promise<void> {
    if (states.size === 0) return;
    const rows = [...states].map(([jobId, failing]) => ({ jobId, failing, updatedAt: now }));
    await this.db.rows(SAVE_JOB_STATES, ALERT_JOB_STATE_COLUMNS.values(rows));
  }
}
