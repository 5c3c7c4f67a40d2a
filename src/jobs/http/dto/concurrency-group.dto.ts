import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { ConcurrencyGroup } from '../../domain/concurrency-group.js';
import { PLACEMENT_LIMITS } from '../../domain/job-placement.js';

export class CreateConcurrencyGroupDto {
  @ApiProperty({
    example: 'database',
    maxLength: PLACEMENT_LIMITS.groupNameMaxLength,
    description: "Unique across the organisation; what the jobs of the group's team name",
  })
  @IsString()
  name!: string;

  @ApiPropertyOptional({
    example: 'payments',
    description:
      "The team that owns the group: only its jobs name it. On create: default the caller's only team (`default` " +
      'for an Orbit admin or an organisation-wide token). On update: moves the group, which needs the admin role ' +
      'in both teams, and is refused (409) while jobs name it',
  })
  @IsOptional()
  @IsString()
  team?: string;

  @ApiProperty({
    example: 3,
    minimum: PLACEMENT_LIMITS.groupLimit.min,
    maximum: PLACEMENT_LIMITS.groupLimit.max,
    description: "At most this many runs of the group's jobs RUNNING at once, across every worker",
  })
  @IsInt()
  limit!: number;
}

export class UpdateConcurrencyGroupDto extends PartialType(CreateConcurrencyGroupDto) {}

export class ListConcurrencyGroupsQuery {
  @ApiPropertyOptional({ example: 'payments', description: "Only the groups of this team (one of the caller's)" })
  @IsOptional()
  @IsString()
  team?: string;
}

export class ConcurrencyGroupResponse {
  @ApiProperty({ format: 'uuid', example: '3f1c2a8e-9b7d-4e55-8a0f-6d2c1b0a9e44' })
  id!: string;
  @ApiProperty({ example: 'database' })
  name!: string;
  @ApiProperty({ example: 'payments', description: 'The team that owns the group' })
  team!: string;
  @ApiProperty({ example: 3 })
  limit!: number;
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z' })
  createdAt!: string;
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z' })
  updatedAt!: string;

  static from(group: ConcurrencyGroup): ConcurrencyGroupResponse {
    const { version: _version, ...g } = group.toProps();
    return { ...g, createdAt: g.createdAt.toISOString(), updatedAt: g.updatedAt.toISOString() };
  }
}

export class ConcurrencyGroupListResponse {
  @ApiProperty({ type: [ConcurrencyGroupResponse] })
  items!: ConcurrencyGroupResponse[];
}
