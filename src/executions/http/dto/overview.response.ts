import { ApiProperty } from '@nestjs/swagger';
import { OVERVIEW, type Overview } from '../../application/overview.service.js';
import { ExecutionCountsResponse } from '../../../jobs/http/dto/job.response.js';

export class RunsNowResponse {
  @ApiProperty({ example: 3 })
  queued!: number;
  @ApiProperty({ example: 2 })
  running!: number;
  @ApiProperty({ example: 0, description: 'Queued runs more than `lateAfterSeconds` past their due instant' })
  late!: number;
  @ApiProperty({ example: 60 })
  lateAfterSeconds!: number;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-30T09:59:00.000Z',
    description: 'The due instant of the queued run that waits longest; null when none is queued',
  })
  oldestQueuedDueAt!: string | null;
}

export class DueJobResponse {
  @ApiProperty({ format: 'uuid', example: '0b7d4c1e-3f4a-4f43-9a53-6a1f2f1f5a10' })
  jobId!: string;
  @ApiProperty({ example: 'nightly-backup' })
  name!: string;
  @ApiProperty({ type: String, nullable: true, example: '0 3 * * *' })
  cronExpression!: string | null;
  @ApiProperty({ example: 'Europe/Berlin' })
  timezone!: string;
  @ApiProperty({ example: '2026-12-01T02:00:00.000Z' })
  nextRunAt!: string;
}

export class DueResponse {
  @ApiProperty({ example: 42, description: 'Enabled jobs whose next slot comes before `until`' })
  jobs!: number;
  @ApiProperty({ example: false, description: 'The count reached `countLimit`: there are at least that many' })
  atLeast!: boolean;
  @ApiProperty({ type: [DueJobResponse], description: 'The first of them, soonest first' })
  next!: DueJobResponse[];
}

export class FailingJobResponse {
  @ApiProperty({ format: 'uuid', example: '0b7d4c1e-3f4a-4f43-9a53-6a1f2f1f5a10' })
  jobId!: string;
  @ApiProperty({ example: 'weekly-report' })
  name!: string;
  @ApiProperty({
    example: 4,
    description:
      'Its last runs that succeeded or failed: how many failed in a row. A run is counted once, however many ' +
      'attempts it took (its retries); a run whose retry is still to come has not failed yet.',
  })
  failuresInRow!: number;
  @ApiProperty({
    example: false,
    description: `Only its last ${OVERVIEW.failedAttemptsRead} failed attempts were read: it failed at least \`failuresInRow\` runs in a row`,
  })
  atLeast!: boolean;
  @ApiProperty({ example: '2026-11-30T09:00:02.000Z' })
  lastFinishedAt!: string;
}

export class OverviewResponse {
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z', description: 'The instant this answer describes' })
  at!: string;
  @ApiProperty({ example: 24 })
  windowHours!: number;
  @ApiProperty({ example: '2026-11-29T10:00:00.000Z', description: '`windowHours` before `at`' })
  since!: string;
  @ApiProperty({ example: '2026-12-01T10:00:00.000Z', description: '`windowHours` after `at`' })
  until!: string;
  @ApiProperty({ example: 10000, description: 'No count goes beyond it: a count equal to it means at least that many' })
  countLimit!: number;
  @ApiProperty({ type: ExecutionCountsResponse, description: 'Executions created since `since`, by status' })
  lastWindow!: ExecutionCountsResponse;
  @ApiProperty({ type: RunsNowResponse })
  now!: RunsNowResponse;
  @ApiProperty({ type: DueResponse, description: 'The jobs due to fire before `until`' })
  due!: DueResponse;
  @ApiProperty({ example: 3, description: 'Failures in a row from which a job is listed in `failingRepeatedly`' })
  failuresInRow!: number;
  @ApiProperty({ type: [FailingJobResponse], description: 'Jobs that failed repeatedly, most failures first' })
  failingRepeatedly!: FailingJobResponse[];

  static from(
    overview: Overview,
    bounds: { windowHours: number; countLimit: number; lateAfterSeconds: number; failuresInRow: number },
  ): OverviewResponse {
    const { runs, due } = overview;
    return {
      at: overview.at.toISOString(),
      windowHours: bounds.windowHours,
      since: overview.since.toISOString(),
      until: overview.until.toISOString(),
      countLimit: bounds.countLimit,
      lastWindow: { ...runs.createdSince },
      now: {
        queued: runs.queued,
        running: runs.running,
        late: runs.late,
        lateAfterSeconds: bounds.lateAfterSeconds,
        oldestQueuedDueAt: runs.oldestQueuedDueAt?.toISOString() ?? null,
      },
      due: {
        jobs: due.count,
        atLeast: due.atLeast,
        next: due.next.map((job) => ({
          jobId: job.id,
          name: job.name,
          cronExpression: job.cronExpression,
          timezone: job.timezone,
          nextRunAt: job.nextRunAt?.toISOString() ?? '',
        })),
      },
      failuresInRow: bounds.failuresInRow,
      failingRepeatedly: overview.failingRepeatedly.map((job) => ({
        jobId: job.jobId,
        name: job.name,
        failuresInRow: job.failuresInRow,
        atLeast: job.atLeast,
        lastFinishedAt: job.lastFinishedAt.toISOString(),
      })),
    };
  }
}
