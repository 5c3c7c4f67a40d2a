import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { PARAMETER_LIMITS } from '../../domain/job-parameters.js';

/** One declared parameter of a job, in requests and answers alike. */
export class JobParameterDto {
  @ApiProperty({
    example: 'TARGET',
    pattern: '^[A-Z][A-Z0-9_]*$',
    maxLength: PARAMETER_LIMITS.nameMaxLength,
    description: 'The command sees the value as ORBIT_PARAM_<name>',
  })
  @IsString()
  name!: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Where to deploy',
    default: null,
    maxLength: PARAMETER_LIMITS.descriptionMaxLength,
  })
  @IsOptional()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'staging',
    default: null,
    maxLength: PARAMETER_LIMITS.valueMaxBytes,
    description: 'The value of scheduled and chained runs, and of manual runs that give none',
  })
  @IsOptional()
  @IsString()
  default?: string | null;

  @ApiPropertyOptional({ example: false, default: false, description: 'A run must have a value (given or default)' })
  @IsOptional()
  @IsBoolean()
  required?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'staging|production',
    default: null,
    maxLength: PARAMETER_LIMITS.patternMaxLength,
    description:
      'A regular expression the whole value must match, in RE2 syntax (matched in linear time): no backreferences or lookaround',
  })
  @IsOptional()
  @IsString()
  pattern?: string | null;
}
