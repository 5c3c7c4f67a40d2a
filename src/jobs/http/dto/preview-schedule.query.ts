import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

export class PreviewScheduleQuery {
  @ApiProperty({ example: '*/15 9-17 * * 1-5', description: 'A cron expression, as a job takes it' })
  @IsString({ message: 'cron must be a cron expression (for example 0 3 * * *)' })
  cron!: string;

  @ApiPropertyOptional({ example: 'Europe/Berlin', default: 'UTC', description: 'IANA time zone of the schedule' })
  @IsOptional()
  @IsString()
  timezone?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 5 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  count?: number;
}
