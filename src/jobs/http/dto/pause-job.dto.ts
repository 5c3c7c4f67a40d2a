import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { IsInstant } from '../../../shared/http/iso-instant.js';
import { JOB_LIMITS } from '../../domain/job.js';

/** Shapes only: the note's length and the instant's range are the domain's rules. */
export class PauseJobDto {
  @ApiPropertyOptional({
    example: 'Database migration until Monday',
    maxLength: JOB_LIMITS.pausedNoteMaxLength,
    description: 'Why the job is paused: shown with the job until it resumes',
  })
  @IsOptional()
  @IsString()
  note?: string;

  @ApiPropertyOptional({
    example: '2026-12-07T08:00:00Z',
    format: 'date-time',
    description: 'When the job resumes by itself: in the future, at most a year ahead. Without it, it stays paused.',
  })
  @IsOptional()
  @IsInstant('resumeAt')
  resumeAt?: string;
}
