import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEnum, IsOptional, IsString, IsUUID, Matches } from 'class-validator';
import { InvalidArgumentError } from '../../../shared/domain/domain-errors.js';
import { IsInstant } from '../../../shared/http/iso-instant.js';
import { ListQueryDto } from '../../../shared/http/list-query.dto.js';
import type { ExecutionFilter } from '../../application/execution-read-model.js';
import { ExecutionStatus } from '../../domain/execution-status.js';

export class ListExecutionsQuery extends ListQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only executions of this job (also of a deleted one)' })
  @IsOptional()
  @IsUUID('all')
  jobId?: string;

  @ApiPropertyOptional({
    example: 'payments',
    description: "Only the executions of this team's jobs (one of the caller's)",
  })
  @IsOptional()
  @IsString()
  team?: string;

  @ApiPropertyOptional({ enum: ExecutionStatus })
  @IsOptional()
  @IsEnum(ExecutionStatus, { message: `status must be one of ${Object.values(ExecutionStatus).join(', ')}` })
  status?: ExecutionStatus;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only the retries of this execution (its next attempt)' })
  @IsOptional()
  @IsUUID('all')
  retryOf?: string;

  @ApiPropertyOptional({
    example: '5c3b0c55',
    description:
      'Only executions whose id begins with these hex digits (4 to 32, dashes left out): the short ids the dashboard shows',
  })
  @IsOptional()
  @Matches(/^[0-9a-f]{4,32}$/i, { message: 'idPrefix must be 4 to 32 hex digits, without dashes' })
  idPrefix?: string;

  @ApiPropertyOptional({
    example: '2026-11-30T09:00:00Z',
    format: 'date-time',
    description: 'Only executions created at this instant or later (included)',
  })
  @IsOptional()
  @IsInstant('createdFrom')
  createdFrom?: string;

  @ApiPropertyOptional({
    example: '2026-11-30T10:00:00Z',
    format: 'date-time',
    description: 'Only executions created before this instant (excluded); after `createdFrom`',
  })
  @IsOptional()
  @IsInstant('createdBefore')
  createdBefore?: string;

  /** The filter but for the teams, which the caller decides (see teamsToShow). */
  toFilter(): ExecutionFilter {
    const createdFrom = this.createdFrom === undefined ? undefined : new Date(this.createdFrom);
    const createdBefore = this.createdBefore === undefined ? undefined : new Date(this.createdBefore);
    if (createdFrom && createdBefore && createdFrom >= createdBefore) {
      throw new InvalidArgumentError('createdFrom must be before createdBefore', 'createdFrom');
    }
    const { jobId, status, retryOf, idPrefix } = this;
    return { jobId, status, retryOf, idPrefix, createdFrom, createdBefore };
  }
}
