import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional } from 'class-validator';
import { ListQueryDto } from '../../../shared/http/list-query.dto.js';

export class ListJobsQuery extends ListQueryDto {
  @ApiPropertyOptional({ type: Boolean, description: 'Only enabled (true) or disabled (false) jobs' })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled?: boolean;
}
