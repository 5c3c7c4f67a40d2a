import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { decodeCursor, PageRequest } from '../application/page.js';

const LIMIT = { min: 1, max: 100, default: 20 } as const;

/** `limit` and `cursor`, shared by every newest-first list. */
export class ListQueryDto {
  @ApiPropertyOptional({
    minimum: LIMIT.min,
    maximum: LIMIT.max,
    default: LIMIT.default,
    description: 'Items per page',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(LIMIT.min)
  @Max(LIMIT.max)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page, with the same filters' })
  @IsOptional()
  @IsString()
  cursor?: string;

  toPageRequest(): PageRequest {
    return {
      limit: this.limit ?? LIMIT.default,
      cursor: this.cursor === undefined ? undefined : decodeCursor(this.cursor),
    };
  }
}
