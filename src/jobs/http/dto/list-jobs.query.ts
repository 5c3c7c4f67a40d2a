import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { JOB_LIMITS } from '../../domain/job.js';
import { CommaList } from '../../../shared/http/comma-list.js';
import { ListQueryDto } from '../../../shared/http/list-query.dto.js';

/** As many as a page holds. */
const MAX_IDS = 100;

/** GET /jobs: a page of jobs, filtered. */
export class ListJobsQuery extends ListQueryDto {
  @ApiPropertyOptional({ type: Boolean, description: 'Only enabled (true) or disabled (false) jobs' })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled?: boolean;

  @ApiPropertyOptional({
    description: 'Only jobs whose name contains this text, ignoring case',
    maxLength: JOB_LIMITS.nameMaxLength,
  })
  @IsOptional()
  @IsString()
  @MaxLength(JOB_LIMITS.nameMaxLength)
  name?: string;

  @ApiPropertyOptional({ example: 'payments', description: "Only the jobs of this team (one of the caller's)" })
  @IsOptional()
  @IsString()
  team?: string;

  @ApiPropertyOptional({
    type: Boolean,
    description:
      'Only jobs whose last run that succeeded or failed failed (true), or only the others (false); ' +
      'cancelled runs do not count. A run is counted once with its retries: it failed when its last attempt ' +
      'did, and a run whose retry is due or running has not ended',
  })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'failing must be true or false' })
  failing?: boolean;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description:
      `Only these jobs, up to ${MAX_IDS} (repeat the parameter or separate the ids by commas), such as those a list ` +
      'of runs names; a deleted job is not listed',
  })
  @IsOptional()
  @CommaList()
  @IsArray()
  @ArrayMaxSize(MAX_IDS, { message: `ids may name at most ${MAX_IDS} jobs` })
  @IsUUID('all', { each: true, message: 'each of ids must be a UUID' })
  ids?: string[];
}
