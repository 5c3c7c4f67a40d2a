import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { PLAN_ACTIONS } from '../../application/plan.js';
import { OrbitFileDto } from './orbit-file.dto.js';

export class ApplyRequestDto {
  @ApiProperty({ type: OrbitFileDto, description: 'The desired state: an orbit file, as JSON' })
  @IsObject()
  @ValidateNested()
  @Type(() => OrbitFileDto)
  file!: OrbitFileDto;

  @ApiPropertyOptional({
    example: 'payments',
    description:
      "The team the file describes: what it creates goes to this team, and it is compared with this team's jobs " +
      "and channels only (another team's are never changed or deleted; a name one of them has is refused as taken). " +
      "Default: the caller's only team (`default` for an Orbit admin or an organisation-wide token). Needs the " +
      'admin role in the team.',
  })
  @IsOptional()
  @IsString()
  team?: string;

  @ApiPropertyOptional({ default: false, description: 'Answer the plan and change nothing' })
  @IsOptional()
  @IsBoolean()
  dryRun?: boolean;

  @ApiPropertyOptional({
    default: false,
    description: "Also delete the team's jobs that an earlier apply created or adopted and the file no longer names",
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
  @ApiProperty({ example: 'payments', description: 'The team the file was applied to' })
  team!: string;
  @ApiProperty({ type: [PlanItemResponse], description: 'In the order applied: channels, then jobs, then deletions' })
  items!: PlanItemResponse[];
}
