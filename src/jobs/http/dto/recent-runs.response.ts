import { ApiProperty } from '@nestjs/swagger';
import type { RecentRun } from '../../application/job-runs.js';
import { RUN_STATUSES } from '../../domain/run-status.js';

export class RecentRunResponse {
  @ApiProperty({ example: '5c3b0c55-9f8e-4a51-8f0e-2b1f7f7e2a11', format: 'uuid' })
  id!: string;
  @ApiProperty({ enum: RUN_STATUSES, example: 'SUCCEEDED' })
  status!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-30T10:00:00.000Z',
    description: 'null when it never started',
  })
  startedAt!: string | null;
  @ApiProperty({ example: '2026-11-30T10:00:03.250Z' })
  finishedAt!: string;
  @ApiProperty({ type: Number, nullable: true, example: 3250, description: 'Started → finished, in milliseconds' })
  durationMs!: number | null;

  static from(run: RecentRun): RecentRunResponse {
    return {
      id: run.id,
      status: run.status,
      startedAt: run.startedAt?.toISOString() ?? null,
      finishedAt: run.finishedAt.toISOString(),
      durationMs: run.durationMs,
    };
  }
}

export class JobRecentRunsResponse {
  @ApiProperty({ format: 'uuid', example: '0b7d4c1e-3f4a-4f43-9a53-6a1f2f1f5a10' })
  jobId!: string;
  @ApiProperty({ type: [RecentRunResponse], description: 'The newest runs that ended, newest first by creation' })
  runs!: RecentRunResponse[];
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 0.95,
    description:
      'Of these runs, the share that succeeded among those that succeeded or failed (0 to 1); null without any',
  })
  successRate!: number | null;
}

export class RecentRunsResponse {
  @ApiProperty({ type: [JobRecentRunsResponse], description: 'One item per job asked for, in the order asked' })
  items!: JobRecentRunsResponse[];
}
