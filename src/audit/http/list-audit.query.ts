import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMinSize, IsArray, IsIn, IsOptional, IsString, MaxLength, MinLength, NotContains } from 'class-validator';
import { AUDITED_ACTIONS, AuditedAction } from '../../shared/application/audited-actions.js';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { CommaList } from '../../shared/http/comma-list.js';
import { IsInstant } from '../../shared/http/iso-instant.js';
import { ListQueryDto } from '../../shared/http/list-query.dto.js';
import { AuditFilter } from '../application/audit-log.js';

/** Longer than any token name or target id; PostgreSQL refuses NUL in text, so it is refused here. */
const TEXT = { maxLength: 200 } as const;

/** A text filter: one value, not empty, no NUL; the messages name the parameter. */
function IsTextFilter(field: string) {
  return applyDecorators(
    IsOptional(),
    IsString({ message: `${field} must be one string (give it once)` }),
    MinLength(1, { message: `${field} must not be empty` }),
    MaxLength(TEXT.maxLength, { message: `${field} must be at most ${TEXT.maxLength} characters` }),
    NotContains('\u0000', { message: `${field} must not contain NUL characters` }),
  );
}

export class ListAuditQuery extends ListQueryDto {
  @ApiPropertyOptional({
    type: [String],
    enum: AUDITED_ACTIONS,
    description: 'Only these actions: repeat the parameter or separate the actions by commas',
  })
  @IsOptional()
  @CommaList()
  @IsArray()
  @ArrayMinSize(1, { message: 'action must name at least one action' })
  @IsIn(AUDITED_ACTIONS, { each: true, message: `each action must be one of ${AUDITED_ACTIONS.join(', ')}` })
  action?: AuditedAction[];

  @ApiPropertyOptional({
    example: 'ci',
    maxLength: TEXT.maxLength,
    description: 'Only changes by the token of this name (exact)',
  })
  @IsTextFilter('actor')
  actor?: string;

  @ApiPropertyOptional({
    maxLength: TEXT.maxLength,
    description: 'Only changes of this job, execution, token, channel, group or worker (its id, exact)',
  })
  @IsTextFilter('targetId')
  targetId?: string;

  @ApiPropertyOptional({
    example: 'payments',
    maxLength: TEXT.maxLength,
    description: 'Only what happened in this team (one the caller administers)',
  })
  @IsTextFilter('team')
  team?: string;

  @ApiPropertyOptional({
    example: '2026-11-30T00:00:00Z',
    format: 'date-time',
    description: 'Only changes made at this instant or later (included)',
  })
  @IsOptional()
  @IsInstant('from')
  from?: string;

  @ApiPropertyOptional({
    example: '2026-12-01T00:00:00Z',
    format: 'date-time',
    description: 'Only changes made before this instant (excluded); after `from`',
  })
  @IsOptional()
  @IsInstant('to')
  to?: string;

  /** `teams`: the teams whose entries the caller reads (undefined: every entry). */
  toFilter(teams?: readonly string[]): AuditFilter {
    const from = this.from === undefined ? undefined : new Date(this.from);
    const to = this.to === undefined ? undefined : new Date(this.to);
    if (from && to && from >= to) throw new InvalidArgumentError('from must be before to', 'from');
    return { actions: this.action, actor: this.actor, targetId: this.targetId, from, to, teams };
  }
}
