import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { TRIGGER_OUTCOMES } from '../../domain/job-triggers.js';
import type { TriggerOutcome } from '../../domain/job-triggers.js';

/** One trigger of a job, in requests and answers alike. */
export class JobTriggerDto {
  @ApiProperty({ example: 'extract', description: 'The name of the job whose runs this one follows' })
  @IsString()
  after!: string;

  @ApiPropertyOptional({
    enum: TRIGGER_OUTCOMES,
    isArray: true,
    default: ['SUCCEEDED'],
    example: ['SUCCEEDED'],
    description: "The upstream run's final outcomes (after its last attempt) that start a run of this job",
  })
  @IsOptional()
  @IsArray()
  @IsIn(TRIGGER_OUTCOMES, { each: true })
  on?: TriggerOutcome[];
}
