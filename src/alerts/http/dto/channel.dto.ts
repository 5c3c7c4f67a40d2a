import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsObject, IsOptional, IsString, ValidateIf, ValidateNested } from 'class-validator';
import type { ChannelUsers } from '../../../jobs/application/job.repository.js';
import { ALERT_EVENTS, CHANNEL_ALERT_EVENTS, DEFAULT_ALERT_ON } from '../../../jobs/domain/job-alerts.js';
import type { AlertEvent, ChannelAlertEvent } from '../../../jobs/domain/job-alerts.js';
import { CHANNEL_TYPES } from '../../domain/channel.js';
import type { Channel, ChannelType } from '../../domain/channel.js';
import { LISTED_JOBS } from '../../application/channels.service.js';
import { ListQueryDto } from '../../../shared/http/list-query.dto.js';

export class AllJobsDto {
  @ApiPropertyOptional({
    enum: CHANNEL_ALERT_EVENTS,
    isArray: true,
    default: DEFAULT_ALERT_ON,
    description:
      "The events of every job of the channel's team, and the cluster's (retention_failed, retention_behind, retention_recovered)",
  })
  @IsOptional()
  @IsArray()
  @IsIn(CHANNEL_ALERT_EVENTS, { each: true })
  on?: ChannelAlertEvent[];
}

/** Shapes only: the channel's rules are the domain's. */
export class CreateChannelDto {
  @ApiProperty({
    example: 'ops-webhook',
    description: "Unique across the organisation; what the jobs of the channel's team name in their alerts",
  })
  @IsString()
  name!: string;

  @ApiPropertyOptional({
    example: 'payments',
    description:
      "The team that owns the channel: only its jobs name it. On create: default the caller's only team (`default` " +
      'for an Orbit admin or an organisation-wide token). On update: moves the channel, which needs the admin role ' +
      'in both teams, and is refused (409) while jobs name it',
  })
  @IsOptional()
  @IsString()
  team?: string;

  @ApiProperty({ enum: CHANNEL_TYPES, example: 'webhook' })
  @IsIn(CHANNEL_TYPES)
  type!: ChannelType;

  @ApiPropertyOptional({
    example: 'https://ops.example.com/orbit-alerts',
    description:
      'webhook and slack: where to POST (http/https; its host must not be link-local, nor private unless allowed); ' +
      'write-only: answers show its scheme, host, port and the words of its path, … for the rest ' +
      '(https://ops.example.com/hooks/…?token=…)',
  })
  @IsOptional()
  @IsString()
  url?: string;

  @ApiPropertyOptional({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'webhook: the Standard Webhooks signing secret (whsec_ + base64); write-only',
    writeOnly: true,
  })
  @IsOptional()
  @IsString()
  secret?: string;

  @ApiPropertyOptional({ example: ['oncall@example.com'], type: [String], description: 'email: the recipients' })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  to?: string[];

  @ApiPropertyOptional({
    type: AllJobsDto,
    nullable: true,
    description:
      'Set: the channel applies to every job of its team on these events; null: only to the jobs that name it',
  })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsObject()
  @ValidateNested()
  @Type(() => AllJobsDto)
  allJobs?: AllJobsDto | null;
}

export class UpdateChannelDto extends PartialType(CreateChannelDto) {}

export class ListChannelsQuery extends ListQueryDto {
  @ApiPropertyOptional({ example: 'payments', description: "Only the channels of this team (one of the caller's)" })
  @IsOptional()
  @IsString()
  team?: string;
}

export class ChannelJobDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;
  @ApiProperty({ example: 'nightly-backup' })
  name!: string;
  @ApiProperty({
    enum: ALERT_EVENTS,
    isArray: true,
    example: ['failed', 'late'],
    description: 'What it alerts on here',
  })
  on!: AlertEvent[];
}

export class ChannelResponse {
  @ApiProperty({ format: 'uuid' })
  id!: string;
  @ApiProperty({ example: 'ops-webhook' })
  name!: string;
  @ApiProperty({ example: 'payments', description: 'The team that owns the channel' })
  team!: string;
  @ApiProperty({ enum: CHANNEL_TYPES })
  type!: string;
  @ApiProperty({
    example: { url: 'https://hooks.slack.com/services/…/…/…', hasSecret: true },
    description:
      'webhook: url and hasSecret; slack: url; email: to. A URL shows its scheme, host, port and the words of its ' +
      'path, and … for what may hold a secret: the last segment of the path and any that is not a word, each ' +
      'value of the query, credentials, the fragment (https://ops.example.com/hooks/…?token=…). Secrets are never ' +
      'answered',
  })
  settings!: Record<string, unknown>;
  @ApiProperty({ type: AllJobsDto, nullable: true })
  allJobs!: { on: ChannelAlertEvent[] } | null;
  @ApiProperty({
    type: [ChannelJobDto],
    description: `The jobs whose alert rules name the channel (of its team), the first ${LISTED_JOBS} by name`,
  })
  jobs!: ChannelJobDto[];
  @ApiProperty({ example: 2, description: 'How many jobs the alert rules of which name the channel' })
  jobCount!: number;
  @ApiProperty({ example: '2026-12-01T10:00:00.000Z' })
  createdAt!: string;
  @ApiProperty({ example: '2026-12-01T10:00:00.000Z' })
  updatedAt!: string;

  /** `users`: the jobs that name it, none when absent. */
  static from(channel: Channel, users: ChannelUsers | undefined): ChannelResponse {
    return {
      id: channel.id,
      name: channel.name,
      team: channel.team,
      type: channel.type,
      settings: channel.publicSettings(),
      allJobs: channel.allJobsOn ? { on: channel.allJobsOn } : null,
      jobs: users?.jobs ?? [],
      jobCount: users?.total ?? 0,
      createdAt: channel.createdAt.toISOString(),
      updatedAt: channel.updatedAt.toISOString(),
    };
  }
}

export class ChannelPageResponse {
  @ApiProperty({ type: [ChannelResponse] })
  items!: ChannelResponse[];
  @ApiProperty({ type: String, nullable: true, example: null })
  nextCursor!: string | null;
}
