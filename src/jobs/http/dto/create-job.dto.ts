import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ALERT_LIMITS } from '../../domain/job-alerts.js';
import { JobAlertDto } from './job-alert.dto.js';
import { PARAMETER_LIMITS } from '../../domain/job-parameters.js';
import { TRIGGER_LIMITS } from '../../domain/job-triggers.js';
import { JobParameterDto } from './job-parameter.dto.js';
import { JobTriggerDto } from './job-trigger.dto.js';
import { JOB_LIMITS } from '../../domain/job.js';
import { CONCURRENCY_POLICIES, MISFIRE_POLICIES } from '../../domain/job-policies.js';
import type { ConcurrencyPolicy, MisfirePolicy } from '../../domain/job-policies.js';
import { PLACEMENT_LIMITS, RUN_ON } from '../../domain/job-placement.js';
import type { RunOn } from '../../domain/job-placement.js';

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

  @ApiPropertyOptional({
    example: 'payments',
    description:
      "The team that owns the job, its runs and history. On create: default the caller's only team (`default` for an " +
      'Orbit admin or an organisation-wide token). On update: moves the job, which needs the admin role in both teams ' +
      "(its alert channels and concurrency group must be the new team's)",
  })
  @IsOptional()
  @IsString()
  team?: string;

  @ApiPropertyOptional({
    example: 'Backs up the orders database to the offsite bucket; ask #data-platform',
    default: '',
    maxLength: JOB_LIMITS.descriptionMaxLength,
    description: 'What the job is for, trimmed',
  })
  @IsOptional()
  @IsString()
  description?: string;

  @ApiProperty({
    example: '/usr/local/bin/backup.sh --full',
    minLength: 1,
    description: `Run with /bin/sh -c; at most ${JOB_LIMITS.commandMaxBytes / 1024} KiB`,
  })
  @IsString()
  command!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '0 3 * * *',
    description:
      '5 fields, 6 fields (seconds first) or @yearly, @monthly, @weekly, @daily, @hourly; null (given as null: a missing one is a 400) for no schedule: the job runs by hand or by trigger only',
  })
  @ValidateIf((_dto, value) => value !== null)
  @IsString()
  cronExpression!: string | null;

  @ApiPropertyOptional({ example: 'Europe/Berlin', default: 'UTC', description: 'IANA time zone of the schedule' })
  @IsOptional()
  @IsString()
  timezone?: string;

  @ApiPropertyOptional({
    type: 'integer',
    example: 2,
    default: JOB_LIMITS.maxRetries.default,
    minimum: JOB_LIMITS.maxRetries.min,
    maximum: JOB_LIMITS.maxRetries.max,
  })
  @IsOptional()
  @IsInt()
  maxRetries?: number;

  @ApiPropertyOptional({
    type: 'integer',
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
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { region: 'eu' },
    default: {},
    description: 'A worker may run this job only if it has every pair among its labels (ORBIT_WORKER_LABELS, host=)',
  })
  @IsOptional()
  @IsObject()
  workerSelector?: Record<string, string>;

  @ApiPropertyOptional({
    enum: RUN_ON,
    default: 'one',
    description: 'one: a fire runs once, on any matching worker; all: once on every live matching worker',
  })
  @IsOptional()
  @IsIn(RUN_ON)
  runOn?: RunOn;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    example: 2,
    minimum: PLACEMENT_LIMITS.maxConcurrent.min,
    maximum: PLACEMENT_LIMITS.maxConcurrent.max,
    description: 'At most this many runs RUNNING at once across all workers (others wait QUEUED); null: no limit',
  })
  @IsOptional()
  @IsInt()
  maxConcurrent?: number | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'database',
    description: 'A concurrency group (POST /concurrency-groups) whose limit the runs share with its other jobs',
  })
  @IsOptional()
  @IsString()
  concurrencyGroup?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    example: 10,
    default: PLACEMENT_LIMITS.priority.default,
    minimum: PLACEMENT_LIMITS.priority.min,
    maximum: PLACEMENT_LIMITS.priority.max,
    description: 'Among due runs, higher first, then the oldest',
  })
  @IsOptional()
  @IsInt()
  priority?: number;

  @ApiPropertyOptional({
    type: [JobTriggerDto],
    default: [],
    maxItems: TRIGGER_LIMITS.perJob,
    description: "Other jobs' final outcomes that start a run of this one (trigger CHAIN); a cycle is refused",
  })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => JobTriggerDto)
  triggers?: JobTriggerDto[];

  @ApiPropertyOptional({
    type: [JobParameterDto],
    default: [],
    maxItems: PARAMETER_LIMITS.perJob,
    description:
      'Inputs of a run: given to POST /jobs/:id/executions, defaults otherwise; the command sees ORBIT_PARAM_<NAME>',
  })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => JobParameterDto)
  parameters?: JobParameterDto[];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '2026-01-01T00:00:00Z',
    default: null,
    description: 'No slot fires before this instant',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  startsAt?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: null,
    default: null,
    description: 'No slot fires after this instant',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  endsAt?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    example: 30,
    default: JOB_LIMITS.jitterSeconds.default,
    minimum: JOB_LIMITS.jitterSeconds.min,
    maximum: JOB_LIMITS.jitterSeconds.max,
    description: "Each slot's run is due a random 0 to N seconds after the slot (scheduledFor stays the slot)",
  })
  @IsOptional()
  @IsInt()
  jitterSeconds?: number;
  @ApiPropertyOptional({
    type: 'integer',
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
    type: 'integer',
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
