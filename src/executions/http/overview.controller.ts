import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { teamsToShow, type Principal } from '../../shared/domain/principal.js';
import { Caller, TeamFiltered } from '../../shared/http/access.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { OVERVIEW, OverviewService } from '../application/overview.service.js';
import { OverviewResponse } from './dto/overview.response.js';
import { ActivityQuery, ActivityResponse } from './dto/activity.dto.js';
import { OverviewQuery } from './dto/overview.query.js';

/** What the Overview shows counts the jobs and runs of the caller's teams only. */
@ApiTags('overview')
@ApiBearerAuth()
@TeamFiltered()
@Controller('overview')
export class OverviewController {
  constructor(private readonly overview: OverviewService) {}

  @Get()
  @ApiOperation({
    summary: "The caller's teams at a glance: runs of the last 24 h, what runs and waits now, what is due, what fails",
    description:
      `Executions created in the last ${OVERVIEW.windowHours} h by status; queued, running and late runs now ` +
      `(queued more than ${OVERVIEW.lateAfterSeconds} s past due); the jobs due in the next ${OVERVIEW.windowHours} h ` +
      `(the first ${OVERVIEW.listed}); the jobs whose last ${OVERVIEW.failuresInRow} or more runs failed. ` +
      `Every count stops at ${OVERVIEW.countLimit}, so the answer stays cheap however many executions there are. ` +
      "Only the jobs of the caller's teams and their runs are counted (`team`: of one of them). " +
      'What runs now and the recent failures are GET /executions?status=RUNNING and ?status=FAILED; workers are GET /workers.',
  })
  @ApiOkResponse({ type: OverviewResponse })
  @ApiErrors(400)
  async get(@Query() query: OverviewQuery, @Caller() caller: Principal): Promise<OverviewResponse> {
    return OverviewResponse.from(await this.overview.overview(teamsToShow(caller, query.team)), OVERVIEW);
  }

  @Get('activity')
  @ApiOperation({
    summary: 'Runs over the last hour or day by outcome, and how many waited and ran',
    description:
      'The window in buckets (whole minutes for `hour`, whole UTC hours for `day`), the last one holding now. ' +
      'Per bucket: the executions created in it by their status now (GET /executions?status=&createdFrom=&createdBefore= ' +
      'lists them), and the runs due and waiting for a worker and the runs running at its end, computed from the ' +
      "executions' created, due, started and finished instants. Only the runs of the caller's teams' jobs count " +
      '(`team`: of one of them).',
  })
  @ApiOkResponse({ type: ActivityResponse })
  @ApiErrors(400)
  async activity(@Query() query: ActivityQuery, @Caller() caller: Principal): Promise<ActivityResponse> {
    return ActivityResponse.from(await this.overview.activity(query.window ?? 'hour', teamsToShow(caller, query.team)));
  }
}
