import { ApiProperty } from '@nestjs/swagger';

export class NextRunsResponse {
  @ApiProperty({ type: [String], example: ['2026-12-01T14:00:00.000Z', '2026-12-02T14:00:00.000Z'] })
  runs!: string[];
}
