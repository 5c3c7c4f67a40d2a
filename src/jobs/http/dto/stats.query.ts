import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** The stats window in hours: a year at most. */
export const STATS_HOURS = { min: 1, max: 8760, default: 24 } as const;

export class StatsQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: STATS_HOURS.min,
    maximum: STATS_HOURS.max,
    default: STATS_HOURS.default,
    description: 'The window: executions created in the last N hours',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(STATS_HOURS.min)
  @Max(STATS_HOURS.max)
  hours?: number;
}
