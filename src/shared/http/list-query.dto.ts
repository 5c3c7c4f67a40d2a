import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { decodeCursor, PageRequest } from '../application/page.js';

/** `limit` and `cursor`, shared by every newest-first list. */
export class ListQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20, description: 'Items per page' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page, with the same filters' })
  @IsOptional()
  @IsString()
  cursor?: string;

  toPageRequest(): PageRequest {
    return { limit: this.limit ?? 20, cursor: this.cursor === undefined ? undefined : decodeCursor(this.cursor) };
  }
}
