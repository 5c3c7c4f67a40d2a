import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsInstant } from '../../../shared/http/iso-instant.js';

export const LANE_PAGE = { default: 500, max: 2000 } as const;

export class WorkerRunsQuery {
  @ApiProperty({
    example: '2026-11-30T09:00:00Z',
    format: 'date-time',
    description: 'The window starts here (included)',
  })
  @IsInstant('from')
  from!: string;

  @ApiProperty({ example: '2026-11-30T10:00:00Z', format: 'date-time', description: 'The window ends here (excluded)' })
  @IsInstant('to')
  to!: string;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: LANE_PAGE.max,
    default: LANE_PAGE.default,
    description: 'Runs at most, the earliest started first',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(LANE_PAGE.max)
  limit?: number;
}
