import { ApiProperty } from '@nestjs/swagger';
import { IsISO8601 } from 'class-validator';

export class BackfillDto {
  @ApiProperty({ example: '2026-11-29T00:00:00Z', description: 'The first instant of the window (included)' })
  @IsISO8601({ strict: true })
  from!: string;

  @ApiProperty({ example: '2026-11-30T00:00:00Z', description: 'The end of the window (excluded); not in the future' })
  @IsISO8601({ strict: true })
  to!: string;
}

export class BackfillResponse {
  @ApiProperty({ example: 24, description: "The job's slots in the window" })
  slots!: number;
  @ApiProperty({ example: 21, description: 'Runs queued: one per slot that had none' })
  queued!: number;
  @ApiProperty({ example: 3, description: 'Slots skipped because they had a run already' })
  skipped!: number;
}
