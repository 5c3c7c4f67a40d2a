import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { TimeWindowQuery } from '../../../shared/http/time-window.query.js';

export const LANE_PAGE = { default: 500, max: 2000 } as const;

export class WorkerRunsQuery extends TimeWindowQuery {
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
