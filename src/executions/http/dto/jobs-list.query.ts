import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional } from 'class-validator';
import { ListJobsQuery } from '../../../jobs/http/dto/list-jobs.query.js';

/** GET /jobs: the jobs module's filters, and the one that needs the runs. */
export class JobsListQuery extends ListJobsQuery {
  @ApiPropertyOptional({
    type: Boolean,
    description:
      'Only jobs whose last run that succeeded or failed failed (true), or only the others (false); ' +
      'cancelled runs do not count',
  })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'failing must be true or false' })
  failing?: boolean;
}
