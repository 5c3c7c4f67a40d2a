import { ApiProperty } from '@nestjs/swagger';
import { Job } from '../../domain/job.js';
import { CONCURRENCY_POLICIES, MISFIRE_POLICIES } from '../../domain/job-policies.js';

export class JobResponse {
  @ApiProperty({ example: '0b7d4c1e-3f4a-4f43-9a53-6a1f2f1f5a10', format: 'uuid' })
  id!: string;
  @ApiProperty({ example: 'nightly-backup' })
  name!: string;
  @ApiProperty({ example: '/usr/local/bin/backup.sh --full' })
  command!: string;
  @ApiProperty({ example: '0 3 * * *' })
  cronExpression!: string;
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
  @ApiProperty({
    example: '2026-12-01T02:00:00.000Z',
    nullable: true,
    type: String,
    description: 'Next slot; null while disabled',
  })
  nextRunAt!: string | null;
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z' })
  createdAt!: string;
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z' })
  updatedAt!: string;

  static from(job: Job): JobResponse {
    const { version: _version, ...props } = job.toProps();
    return {
      ...props,
      nextRunAt: props.nextRunAt?.toISOString() ?? null,
      createdAt: props.createdAt.toISOString(),
      updatedAt: props.updatedAt.toISOString(),
    };
  }
}

export class JobPageResponse {
  @ApiProperty({ type: [JobResponse] })
  items!: JobResponse[];
  @ApiProperty({ type: String, nullable: true, example: null })
  nextCursor!: string | null;
}

export class NextRunsResponse {
  @ApiProperty({ type: [String], example: ['2026-12-01T14:00:00.000Z', '2026-12-02T14:00:00.000Z'] })
  runs!: string[];
}
