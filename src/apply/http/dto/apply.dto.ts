import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsObject, IsOptional, ValidateNested } from 'class-validator';
import { PLAN_ACTIONS } from '../../application/plan.js';
import { OrbitFileDto } from './orbit-file.dto.js';

export class ApplyRequestDto {
  @ApiProperty({ type: OrbitFileDto, description: 'The desired state: an orbit file, as JSON' })
  @IsObject()
  @ValidateNested()
  @Type(() => OrbitFileDto)
  file!: OrbitFileDto;

  @ApiPropertyOptional({ default: false, description: 'Answer the plan and change nothing' })
  @IsOptional()
  @IsBoolean()
  dryRun?: boolean;

  @ApiPropertyOptional({
    default: false,
    description: 'Also delete the jobs an earlier apply created or adopted that the file no longer names',
  })
  @IsOptional()
  @IsBoolean()
  prune?: boolean;
}

export class FieldChangeResponse {
  @ApiProperty({ example: 'cronExpression' })
  field!: string;
  @ApiProperty({
    example: '0 3 * * *',
    nullable: true,
    description: 'Any JSON value; secrets show as "(secret)", URLs as https://host/…',
  })
  from!: unknown;
  @ApiProperty({
    example: '0 4 * * *',
    nullable: true,
    description: 'Any JSON value; secrets show as "(secret)", URLs as https://host/…',
  })
  to!: unknown;
}

export class PlanItemResponse {
  @ApiProperty({ example: 'jobs', description: 'The section of the file' })
  section!: string;
  @ApiProperty({ example: 'nightly-backup' })
  name!: string;
  @ApiProperty({
    enum: PLAN_ACTIONS,
    example: 'update',
    description: 'adopt: a job made by other means that this apply takes over (prune may delete it later)',
  })
  action!: string;
  @ApiProperty({ type: [FieldChangeResponse], description: 'What an update changes; empty otherwise' })
  changes!: FieldChangeResponse[];
}

export class ApplyResponse {
  @ApiProperty({ example: false, description: 'true: nothing was changed' })
  dryRun!: boolean;
  @ApiProperty({ type: [PlanItemResponse], description: 'In the order applied: channels, then jobs, then deletions' })
  items!: PlanItemResponse[];
}
