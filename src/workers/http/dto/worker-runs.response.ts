import { ApiProperty } from '@nestjs/swagger';
import { LaneRun } from '../../application/worker-runs.js';

export class LaneRunResponse {
  @ApiProperty({ format: 'uuid', example: '5c3b0c55-9f8e-4a51-8f0e-2b1f7f7e2a11', description: 'The execution' })
  id!: string;
  @ApiProperty({ format: 'uuid', example: '0b7d4c1e-3f4a-4f43-9a53-6a1f2f1f5a10' })
  jobId!: string;
  @ApiProperty({ type: String, nullable: true, example: 'nightly-backup', description: 'Null only when the job went' })
  jobName!: string | null;
  @ApiProperty({ enum: ['RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'], example: 'SUCCEEDED' })
  status!: string;
  @ApiProperty({ example: '2026-11-30T09:04:12.000Z' })
  startedAt!: string;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-30T09:04:15.000Z', description: 'Null while it runs' })
  finishedAt!: string | null;
}

export class WorkerRunsResponse {
  @ApiProperty({ example: 'host-a:4242:1f2e3d' })
  workerId!: string;
  @ApiProperty({ example: '2026-11-30T09:00:00.000Z' })
  from!: string;
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z' })
  to!: string;
  @ApiProperty({
    type: [LaneRunResponse],
    description: 'The runs it held at some time in [from, to): started before `to`, not ended before `from`; by start',
  })
  items!: LaneRunResponse[];
  @ApiProperty({ example: false, description: 'More runs than `limit`: the window holds later ones too' })
  truncated!: boolean;

  static from(workerId: string, from: Date, to: Date, runs: LaneRun[], limit: number): WorkerRunsResponse {
    return {
      workerId,
      from: from.toISOString(),
      to: to.toISOString(),
      items: runs.slice(0, limit).map((run) => ({
        ...run,
        startedAt: run.startedAt.toISOString(),
        finishedAt: run.finishedAt?.toISOString() ?? null,
      })),
      truncated: runs.length > limit,
    };
  }
}
