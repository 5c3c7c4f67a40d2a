import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** The largest `after` accepted: every seq a JavaScript number holds exactly. */
export const MAX_AFTER = Number.MAX_SAFE_INTEGER;
export const EVENT_PAGE = { default: 100, max: 1000 } as const;

export class AfterQuery {
  @ApiPropertyOptional({ minimum: 0, description: 'Events with a seq above this one (0: from the oldest kept)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_AFTER)
  after?: number;
}

export class ListEventsQuery extends AfterQuery {
  @ApiPropertyOptional({
    minimum: 1,
    maximum: EVENT_PAGE.max,
    default: EVENT_PAGE.default,
    description: 'Events per page',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(EVENT_PAGE.max)
  limit?: number;
}
