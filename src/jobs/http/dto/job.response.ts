import { ApiProperty } from '@nestjs/swagger';
import type { JobStats, LastExecution } from '../../application/job-runs.js';
import { Job } from '../../domain/job.js';
import { CONCURRENCY_POLICIES, MISFIRE_POLICIES } from '../../domain/job-policies.js';
import { RUN_ON } from '../../domain/job-placement.js';
import { RUN_STATUSES } from '../../domain/run-status.js';
import { JobAlertDto } from './job-alert.dto.js';
import { JobParameterDto } from './job-parameter.dto.js';
import { JobTriggerDto } from './job-trigger.dto.js';

export class LastExecutionResponse {
  @ApiProperty({ example: '5c3b0c55-9f8e-4a51-8f0e-2b1f7f7e2a11', format: 'uuid' })
  id!: string;
  @ApiProperty({ enum: RUN_STATUSES, example: 'SUCCEEDED' })
  status!: string;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-30T10:00:03.250Z', description: 'null until final' })
  finishedAt!: string | null;

  static from(last: LastExecution): LastExecutionResponse {
    return { id: last.id, status: last.status, finishedAt: last.finishedAt?.toISOString() ?? null };
  }
}

export class JobResponse {
  @ApiProperty({ example: '0b7d4c1e-3f4a-4f43-9a53-6a1f2f1f5a10', format: 'uuid' })
  id!: string;
  @ApiProperty({ example: 'nightly-backup' })
  name!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'payments',
    description: 'The team that owns the job (null: a deleted job whose team was deleted since)',
  })
  team!: string | null;
  @ApiProperty({ example: 'Backs up the orders database to the offsite bucket; ask #data-platform' })
  description!: string;
  @ApiProperty({ example: '/usr/local/bin/backup.sh --full' })
  command!: string;
  @ApiProperty({ type: String, nullable: true, example: '0 3 * * *', description: 'null: no schedule' })
  cronExpression!: string | null;
  @ApiProperty({ example: 'Europe/Berlin' })
  timezone!: string;
  @ApiProperty({ example: 2 })
  maxRetries!: number;
  @ApiProperty({ example: 600 })
  timeoutSeconds!: number;
  @ApiProperty({ example: true })
  enabled!: boolean;
  @ApiProperty({ enum: MISFIRE_POLICIES, example: 'RUN_ONCE' })
  misfirePolicy!: string;
  @ApiProperty({ enum: CONCURRENCY_POLICIES, example: 'ALLOW' })
  concurrencyPolicy!: string;
  @ApiProperty({ type: [JobAlertDto], description: 'Alert rules, each with its events' })
  alerts!: JobAlertDto[];
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 300,
    description: 'Seconds after a slot before it is late; null: not watched',
  })
  lateAfterSeconds!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 1800,
    description: 'Seconds of running before a run is long-running; null: no limit',
  })
  maxDurationSeconds!: number | null;
  @ApiProperty({
    example: '2026-12-01T02:00:00.000Z',
    nullable: true,
    type: String,
    description: 'Next slot; null while disabled',
  })
  nextRunAt!: string | null;
  @ApiProperty({
    type: LastExecutionResponse,
    nullable: true,
    description: 'The most recent execution of the job (by creation), whatever its status; null when it has none',
  })
  lastExecution!: LastExecutionResponse | null;
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z' })
  createdAt!: string;
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z' })
  updatedAt!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Database migration until Monday',
    description: 'Why the job is paused (POST /jobs/:id/pause); null while it runs or when paused without a note',
  })
  pausedNote!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-12-07T08:00:00.000Z',
    description: 'When the paused job resumes by itself; null while it runs or when it stays paused',
  })
  resumeAt!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { region: 'eu' } })
  workerSelector!: Record<string, string>;
  @ApiProperty({ enum: RUN_ON, example: 'one' })
  runOn!: string;
  @ApiProperty({ type: Number, nullable: true, example: null })
  maxConcurrent!: number | null;
  @ApiProperty({ type: String, nullable: true, example: null })
  concurrencyGroup!: string | null;
  @ApiProperty({ example: 0 })
  priority!: number;
  @ApiProperty({ type: [JobTriggerDto], description: "Other jobs' outcomes that start a run of this one" })
  triggers!: JobTriggerDto[];
  @ApiProperty({ type: [JobParameterDto], description: 'The inputs a run takes' })
  parameters!: JobParameterDto[];
  @ApiProperty({ type: String, nullable: true, example: null, description: 'No slot fires before this instant' })
  startsAt!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'No slot fires after this instant' })
  endsAt!: string | null;
  @ApiProperty({ example: 0, description: 'Runs are due up to this many seconds after their slot' })
  jitterSeconds!: number;

  static from(job: Job, lastExecution: LastExecution | null): JobResponse {
    const { version: _version, ...props } = job.toProps();
    return {
      ...props,
      nextRunAt: props.nextRunAt?.toISOString() ?? null,
      lastExecution: lastExecution ? LastExecutionResponse.from(lastExecution) : null,
      createdAt: props.createdAt.toISOString(),
      updatedAt: props.updatedAt.toISOString(),
      resumeAt: props.resumeAt?.toISOString() ?? null,
      startsAt: props.startsAt?.toISOString() ?? null,
      endsAt: props.endsAt?.toISOString() ?? null,
    };
  }
}

export class JobPageResponse {
  @ApiProperty({ type: [JobResponse] })
  items!: JobResponse[];
  @ApiProperty({ type: String, nullable: true, example: null })
  nextCursor!: string | null;
}

export class ExecutionCountsResponse {
  @ApiProperty({ example: 0 })
  QUEUED!: number;
  @ApiProperty({ example: 1 })
  RUNNING!: number;
  @ApiProperty({ example: 20 })
  SUCCEEDED!: number;
  @ApiProperty({ example: 2 })
  FAILED!: number;
  @ApiProperty({ example: 1 })
  CANCELLED!: number;
}

export class DurationPercentilesResponse {
  @ApiProperty({ type: Number, nullable: true, example: 1250, description: 'Median, in milliseconds' })
  p50!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 4100.5, description: '95th percentile, in milliseconds' })
  p95!: number | null;
}

export class JobStatsResponse {
  @ApiProperty({ example: 24 })
  windowHours!: number;
  @ApiProperty({
    example: '2026-11-29T10:00:00.000Z',
    description: 'Executions created at or after this instant count',
  })
  since!: string;
  @ApiProperty({ type: ExecutionCountsResponse, description: 'Executions of the window by status' })
  counts!: ExecutionCountsResponse;
  @ApiProperty({
    type: DurationPercentilesResponse,
    description:
      'From start to finish of the runs of the window that started and are final (percentile_cont); null when there are none',
  })
  durationMs!: DurationPercentilesResponse;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 0.9,
    description:
      'Of the runs of the window that succeeded or failed, the share that succeeded (0 to 1); cancelled runs do not count; null without any',
  })
  successRate!: number | null;

  static from(stats: JobStats): JobStatsResponse {
    return {
      windowHours: stats.windowHours,
      since: stats.since.toISOString(),
      counts: { ...stats.counts },
      durationMs: { ...stats.durationMs },
      successRate: stats.successRate,
    };
  }
}
