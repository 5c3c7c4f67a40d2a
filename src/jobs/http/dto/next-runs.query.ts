import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export const NEXT_RUNS = { min: 1, max: 100, default: 5 } as const;

export class NextRunsQuery {
  @ApiPropertyOptional({ minimum: NEXT_RUNS.min, maximum: NEXT_RUNS.max, default: NEXT_RUNS.default })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(NEXT_RUNS.min)
  @Max(NEXT_RUNS.max)
  count?: number;
}
