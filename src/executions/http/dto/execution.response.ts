import { ApiProperty } from '@nestjs/swagger';
import { CANCELLERS, EXECUTION_TRIGGERS, Execution } from '../../domain/execution.js';
import { EXECUTION_STATUSES } from '../../domain/execution-status.js';
import { isoTime } from '../../../shared/http/iso-time.js';

const iso = (date: Date | null): string | null => (date === null ? null : isoTime(date));

export class CancelledByResponse {
  @ApiProperty({
    enum: CANCELLERS,
    example: 'caller',
    description:
      "`caller`: a call of POST /executions/:id/cancel (the dashboard's Cancel too); `job_deletion`: its job was " +
      'deleted while the run was queued; `scheduler`: Orbit did it: the scheduler cancels the earlier run of a ' +
      'REPLACE job when the next slot fires',
  })
  by!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'ops-alice',
    description: 'The name of the token that cancelled it, or that deleted its job; null when Orbit did it',
  })
  actor!: string | null;
}

export class ExecutionResponse {
  @ApiProperty({ example: '5c3b0c55-9f8e-4a51-8f0e-2b1f7f7e2a11', format: 'uuid' })
  id!: string;
  @ApiProperty({ example: '0b7d4c1e-3f4a-4f43-9a53-6a1f2f1f5a10', format: 'uuid' })
  jobId!: string;
  @ApiProperty({
    example: '/usr/local/bin/backup.sh --full',
    description: "The job's command when this run was created",
  })
  command!: string;
  @ApiProperty({ example: 2 })
  maxRetries!: number;
  @ApiProperty({ example: 600 })
  timeoutSeconds!: number;
  @ApiProperty({ enum: EXECUTION_STATUSES, example: 'RUNNING' })
  status!: string;
  @ApiProperty({ example: 1, description: '1 for a first run, 2 for its first retry, ...' })
  attempt!: number;
  @ApiProperty({ enum: EXECUTION_TRIGGERS, example: 'MANUAL' })
  trigger!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'The schedule slot (SCHEDULE and BACKFILL runs, and their retries)',
  })
  scheduledFor!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'The failed execution this one retries' })
  retryOf!: string | null;
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z', description: 'Not started before this instant' })
  dueAt!: string;
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z' })
  createdAt!: string;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-30T10:00:00.120Z' })
  startedAt!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null })
  finishedAt!: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: null,
    description:
      "The command's exit code; -1 when it gave none of its own: it could not start, its worker shut down and " +
      'stopped it after the shutdown grace, or its worker was lost (errorMessage says which); null until it ends',
  })
  exitCode!: number | null;
  @ApiProperty({ type: String, nullable: true, example: null })
  errorMessage!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'host-a:4242:1f2e', description: 'The worker running it' })
  workerId!: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { region: 'eu' },
    description: "The job's workerSelector when this run was created: only a worker with every pair runs it",
  })
  workerSelector!: Record<string, string>;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'The only worker that may run it (a fire of a runOn: all job), its retries too',
  })
  pinnedWorker!: string | null;
  @ApiProperty({ type: Number, nullable: true, example: null, description: "The job's maxConcurrent when created" })
  maxConcurrent!: number | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: "The job's concurrencyGroup when created" })
  concurrencyGroup!: string | null;
  @ApiProperty({ example: 0, description: "The job's priority when created" })
  priority!: number;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'While queued: why no live worker can take it now, e.g. "no live worker has region=eu"',
  })
  waitingFor!: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { TARGET: 'staging' },
    description: 'The parameter values it ran with (the command saw ORBIT_PARAM_<NAME>)',
  })
  parameters!: Record<string, string>;
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uuid',
    example: null,
    description: 'The upstream execution whose outcome started this run (CHAIN runs and their retries)',
  })
  triggeredBy!: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 1800,
    description: "The job's maxDurationSeconds when the run was created: running longer is told once; null: no limit",
  })
  maxDurationSeconds!: number | null;
  @ApiProperty({
    type: CancelledByResponse,
    nullable: true,
    example: null,
    description:
      'Who cancelled it; null unless it was cancelled, and for a run cancelled before Orbit kept it (' +
      'GET /executions/:id/cancellation tells those from the audit trail)',
  })
  cancelledBy!: CancelledByResponse | null;

  /** Field by field (no rest/spread copies) and isoTime: a page maps up to 100 of these per request. */
  static from(execution: Execution): ExecutionResponse {
    const p = execution.toProps();
    return {
      id: p.id,
      jobId: p.jobId,
      command: p.command,
      maxRetries: p.maxRetries,
      timeoutSeconds: p.timeoutSeconds,
      status: p.status,
      attempt: p.attempt,
      trigger: p.trigger,
      scheduledFor: iso(p.scheduledFor),
      retryOf: p.retryOf,
      dueAt: isoTime(p.dueAt),
      createdAt: isoTime(p.createdAt),
      startedAt: iso(p.startedAt),
      finishedAt: iso(p.finishedAt),
      exitCode: p.exitCode,
      errorMessage: p.errorMessage,
      workerId: p.workerId,
      workerSelector: { ...p.workerSelector },
      pinnedWorker: p.pinnedWorker,
      maxConcurrent: p.maxConcurrent,
      concurrencyGroup: p.concurrencyGroup,
      priority: p.priority,
      waitingFor: p.waitingFor,
      parameters: p.parameters,
      triggeredBy: p.triggeredBy,
      maxDurationSeconds: p.maxDurationSeconds,
      cancelledBy: p.cancelledBy && { by: p.cancelledBy.by, actor: p.cancelledBy.actor },
    };
  }
}

export class ExecutionPageResponse {
  @ApiProperty({ type: [ExecutionResponse] })
  items!: ExecutionResponse[];
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'MjAyNi0xMS0zMFQxMDowMDowMC4wMDBafDVjM2IwYzU1LTlmOGUtNGE1MS04ZjBlLTJiMWY3ZjdlMmExMQ',
  })
  nextCursor!: string | null;
}

export class ExecutionOutputResponse {
  @ApiProperty({ example: 'backup done: 1.2 GB\n' })
  stdout!: string;
  @ApiProperty({ example: '' })
  stderr!: string;
  @ApiProperty({ example: false, description: 'Whether older output was dropped to respect the limit' })
  truncated!: boolean;
}
