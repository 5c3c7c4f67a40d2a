import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ALERT_LIMITS } from '../../domain/job-alerts.js';
import { JobAlertDto } from './job-alert.dto.js';
import { JOB_LIMITS } from '../../domain/job.js';
import { CONCURRENCY_POLICIES, MISFIRE_POLICIES } from '../../domain/job-policies.js';
import type { ConcurrencyPolicy, MisfirePolicy } from '../../domain/job-policies.js';

/** Shapes only: the ranges and the meaning of each field are the domain's rules. */
export class CreateJobDto {
  @ApiProperty({
    example: 'nightly-backup',
    minLength: 1,
    maxLength: JOB_LIMITS.nameMaxLength,
    description: 'Unique, trimmed',
  })
  @IsString()
  name!: string;

  @ApiProperty({
    example: '/usr/local/bin/backup.sh --full',
    description: `Run with /bin/sh -c; at most ${JOB_LIMITS.commandMaxBytes / 1024} KiB`,
  })
  @IsString()
  command!: string;

  @ApiProperty({
    example: '0 3 * * *',
    description: '5 fields, 6 fields (seconds first) or @yearly, @monthly, @weekly, @daily, @hourly',
  })
  @IsString()
  cronExpression!: string;

  @ApiPropertyOptional({ example: 'Europe/Berlin', default: 'UTC', description: 'IANA time zone of the schedule' })
  @IsOptional()
  @IsString()
  timezone?: string;

  @ApiPropertyOptional({
    example: 2,
    default: JOB_LIMITS.maxRetries.default,
    minimum: JOB_LIMITS.maxRetries.min,
    maximum: JOB_LIMITS.maxRetries.max,
  })
  @IsOptional()
  @IsInt()
  maxRetries?: number;

  @ApiPropertyOptional({
    example: 600,
    default: JOB_LIMITS.timeoutSeconds.default,
    minimum: JOB_LIMITS.timeoutSeconds.min,
    maximum: JOB_LIMITS.timeoutSeconds.max,
  })
  @IsOptional()
  @IsInt()
  timeoutSeconds?: number;

  @ApiPropertyOptional({ example: true, default: true, description: 'Whether the schedule fires' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    enum: MISFIRE_POLICIES,
    default: 'RUN_ONCE',
    description: 'Slots missed while no scheduler ran: RUN_ONCE fires the most recent one on recovery, SKIP none',
  })
  @IsOptional()
  @IsIn(MISFIRE_POLICIES)
  misfirePolicy?: MisfirePolicy;

  @ApiPropertyOptional({
    enum: CONCURRENCY_POLICIES,
    default: 'ALLOW',
    description:
      'A fire while an earlier execution is queued or running: ALLOW it, FORBID (skip) it, or REPLACE the earlier one',
  })
  @IsOptional()
  @IsIn(CONCURRENCY_POLICIES)
  concurrencyPolicy?: ConcurrencyPolicy;

  @ApiPropertyOptional({
    type: [JobAlertDto],
    default: [],
    maxItems: ALERT_LIMITS.rulesPerJob,
    description: 'Alert rules: each names a channel (unknown names are refused) and the events to send it',
  })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => JobAlertDto)
  alerts?: JobAlertDto[];

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    example: 300,
    default: null,
    minimum: JOB_LIMITS.lateAfterSeconds.min,
    maximum: JOB_LIMITS.lateAfterSeconds.max,
    description:
      'A slot with no started run this many seconds after its time is late (a `late` alert), whatever the reason; null: not watched',
  })
  @IsOptional()
  @IsInt()
  lateAfterSeconds?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    example: 1800,
    default: null,
    minimum: JOB_LIMITS.maxDurationSeconds.min,
    maximum: JOB_LIMITS.maxDurationSeconds.max,
    description:
      'A run still running this many seconds after it started is long-running (a `long_running` alert; the run goes on); copied to each run like timeoutSeconds; null: no limit',
  })
  @IsOptional()
  @IsInt()
  maxDurationSeconds?: number | null;
}
