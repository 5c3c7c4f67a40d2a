import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export class StatsQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 8760,
    default: 24,
    description: 'The window: executions created in the last N hours',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(8760)
  hours?: number;
}
