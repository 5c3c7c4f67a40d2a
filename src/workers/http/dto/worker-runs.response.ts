import { ApiProperty } from '@nestjs/swagger';
import { LaneRun } from '../../application/worker-runs.js';
import { HeldRunResponse } from './held-run.response.js';

export class LaneRunResponse extends HeldRunResponse {
  @ApiProperty({ enum: ['RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'], example: 'SUCCEEDED' })
  status!: string;
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
