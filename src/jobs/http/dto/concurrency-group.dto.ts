import { ApiProperty, PartialType } from '@nestjs/swagger';
import { IsInt, IsString } from 'class-validator';
import { ConcurrencyGroup } from '../../domain/concurrency-group.js';
import { PLACEMENT_LIMITS } from '../../domain/job-placement.js';

export class CreateConcurrencyGroupDto {
  @ApiProperty({ example: 'database', maxLength: PLACEMENT_LIMITS.groupNameMaxLength, description: 'Unique' })
  @IsString()
  name!: string;

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

export class ConcurrencyGroupResponse {
  @ApiProperty({ format: 'uuid', example: '3f1c2a8e-9b7d-4e55-8a0f-6d2c1b0a9e44' })
  id!: string;
  @ApiProperty({ example: 'database' })
  name!: string;
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
