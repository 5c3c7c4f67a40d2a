import { ApiProperty } from '@nestjs/swagger';

/** A run a worker holds: which, of which job, since when. */
export class HeldRunResponse {
  @ApiProperty({ format: 'uuid', example: '5c3b0c55-9f8e-4a51-8f0e-2b1f7f7e2a11', description: 'The execution' })
  id!: string;
  @ApiProperty({ format: 'uuid', example: '0b7d4c1e-3f4a-4f43-9a53-6a1f2f1f5a10' })
  jobId!: string;
  @ApiProperty({ type: String, nullable: true, example: 'nightly-backup', description: 'Null only when the job went' })
  jobName!: string | null;
  @ApiProperty({ example: '2026-11-30T10:04:12.000Z' })
  startedAt!: string;
}
