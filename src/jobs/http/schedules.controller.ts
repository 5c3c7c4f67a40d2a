import { TeamsCheckedByRoute } from '../../shared/http/access.decorators.js';
import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { JobsService } from '../application/jobs.service.js';
import { NextRunsResponse } from './dto/next-runs.response.js';
import { PreviewScheduleQuery } from './dto/preview-schedule.query.js';

@ApiTags('jobs')
@ApiBearerAuth()
@TeamsCheckedByRoute()
@Controller('schedules')
export class SchedulesController {
  constructor(private readonly jobs: JobsService) {}

  @Get('preview')
  @ApiOperation({
    summary: 'The next fire times of a cron expression in a time zone, before any job has it',
    description:
      "Parsed by the rules of a job's schedule, so an expression this accepts a job accepts too; a 400 names the bad parameter (`cron`, `timezone` or `count`).",
  })
  @ApiOkResponse({ type: NextRunsResponse })
  @ApiErrors(400)
  preview(@Query() query: PreviewScheduleQuery): NextRunsResponse {
    const runs = this.jobs.previewSchedule(query.cron, query.timezone ?? 'UTC', query.count ?? 5);
    return { runs: runs.map((d) => d.toISOString()) };
  }
}
