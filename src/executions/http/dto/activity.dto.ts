import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { ACTIVITY_WINDOWS, type ActivityWindow } from '../../domain/activity.js';
import type { Activity } from '../../application/overview.service.js';
import { ExecutionCountsResponse } from '../../../jobs/http/dto/job.response.js';
import { OverviewQuery } from './overview.query.js';

const WINDOWS = Object.keys(ACTIVITY_WINDOWS) as ActivityWindow[];

export class ActivityQuery extends OverviewQuery {
  @ApiPropertyOptional({
    enum: WINDOWS,
    default: 'hour',
    description: 'hour: the last 60 minutes, by the minute; day: the last 24 hours, by the hour',
  })
  @IsOptional()
  @IsIn(WINDOWS, { message: `window must be one of ${WINDOWS.join(', ')}` })
  window?: ActivityWindow;
}

export class OutcomeBucketResponse {
  @ApiProperty({ example: '2026-11-30T09:59:00.000Z', description: 'The start of the bucket' })
  at!: string;
  @ApiProperty({
    type: ExecutionCountsResponse,
    description: 'Executions created in the bucket, by their status now (an attempt of a retried run counts alone)',
  })
  runs!: ExecutionCountsResponse;
}

export class LevelSampleResponse {
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z', description: 'The end of the bucket; for the last one, `at`' })
  at!: string;
  @ApiProperty({ example: 4, description: 'Runs due and waiting for a worker then' })
  queued!: number;
  @ApiProperty({ example: 2, description: 'Runs running then' })
  running!: number;
}

export class ActivityResponse {
  @ApiProperty({ enum: WINDOWS, example: 'hour' })
  window!: ActivityWindow;
  @ApiProperty({ example: '2026-11-30T10:00:30.000Z', description: 'The instant this answer describes' })
  at!: string;
  @ApiProperty({ example: '2026-11-30T09:01:00.000Z', description: 'The start of the first bucket' })
  since!: string;
  @ApiProperty({ example: '2026-11-30T10:01:00.000Z', description: 'The end of the last bucket, which holds `at`' })
  until!: string;
  @ApiProperty({ example: 60, description: 'The length of a bucket' })
  stepSeconds!: number;
  @ApiProperty({ type: [OutcomeBucketResponse], description: 'Every bucket of the window, oldest first' })
  outcomes!: OutcomeBucketResponse[];
  @ApiProperty({ type: [LevelSampleResponse], description: 'Every bucket of the window, oldest first' })
  levels!: LevelSampleResponse[];

  static from(activity: Activity): ActivityResponse {
    return {
      window: activity.window,
      at: activity.at.toISOString(),
      since: activity.since.toISOString(),
      until: activity.until.toISOString(),
      stepSeconds: activity.stepSeconds,
      outcomes: activity.outcomes.map((bucket) => ({ at: bucket.at.toISOString(), runs: { ...bucket.runs } })),
      levels: activity.levels.map((sample) => ({ ...sample, at: sample.at.toISOString() })),
    };
  }
}
