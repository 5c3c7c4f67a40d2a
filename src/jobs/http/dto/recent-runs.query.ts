import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { CommaList } from '../../../shared/http/comma-list.js';

/** At most one page of jobs, and the runs a chart of one job draws. */
export const RECENT_RUNS = { maxJobs: 100, min: 1, max: 200, default: 20 } as const;

export class RecentRunsQuery {
  @ApiProperty({
    type: [String],
    format: 'uuid',
    description: `The jobs, up to ${RECENT_RUNS.maxJobs}: repeat the parameter or separate the ids by commas`,
  })
  @CommaList()
  @IsArray()
  @ArrayMinSize(1, { message: 'ids must name at least one job' })
  @ArrayMaxSize(RECENT_RUNS.maxJobs, { message: `ids may name at most ${RECENT_RUNS.maxJobs} jobs` })
  @IsUUID('all', { each: true, message: 'each of ids must be a UUID' })
  ids!: string[];

  @ApiPropertyOptional({
    type: 'integer',
    minimum: RECENT_RUNS.min,
    maximum: RECENT_RUNS.max,
    default: RECENT_RUNS.default,
    description: 'Runs per job, the last that ended',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(RECENT_RUNS.min)
  @Max(RECENT_RUNS.max)
  count?: number;
}
