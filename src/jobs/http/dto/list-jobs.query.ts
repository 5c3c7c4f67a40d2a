import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { JOB_LIMITS } from '../../domain/job.js';
import { ListQueryDto } from '../../../shared/http/list-query.dto.js';

export class ListJobsQuery extends ListQueryDto {
  @ApiPropertyOptional({ type: Boolean, description: 'Only enabled (true) or disabled (false) jobs' })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled?: boolean;

  @ApiPropertyOptional({
    description: 'Only jobs whose name contains this text, ignoring case',
    maxLength: JOB_LIMITS.nameMaxLength,
  })
  @IsOptional()
  @IsString()
  @MaxLength(JOB_LIMITS.nameMaxLength)
  name?: string;
}
