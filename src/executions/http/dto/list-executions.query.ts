import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEnum, IsOptional, IsUUID } from 'class-validator';
import { ListQueryDto } from '../../../shared/http/list-query.dto.js';
import { ExecutionStatus } from '../../domain/execution-status.js';

export class ListExecutionsQuery extends ListQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only executions of this job (also of a deleted one)' })
  @IsOptional()
  @IsUUID('all')
  jobId?: string;

  @ApiPropertyOptional({ enum: ExecutionStatus })
  @IsOptional()
  @IsEnum(ExecutionStatus, { message: `status must be one of ${Object.values(ExecutionStatus).join(', ')}` })
  status?: ExecutionStatus;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only the retries of this execution (its next attempt)' })
  @IsOptional()
  @IsUUID('all')
  retryOf?: string;
}
