import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { visibleTeams, type Principal } from '../../shared/domain/principal.js';
import { Caller, TeamFiltered } from '../../shared/http/access.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { checkLaneWindow, LANE_MAX_HOURS } from '../application/lane-window.js';
import { WorkerRuns } from '../application/worker-runs.js';
import { LANE_PAGE, WorkerRunsQuery } from './dto/worker-runs.query.js';
import { WorkerRunsResponse } from './dto/worker-runs.response.js';

@ApiTags('workers')
@ApiBearerAuth()
@Controller('workers')
export class WorkerRunsController {
  constructor(private readonly runs: WorkerRuns) {}

  @Get(':id/runs')
  @TeamFiltered()
  @ApiOperation({
    summary: "A worker's runs in a window: its lane",
    description:
      `The runs the worker held at some time in [from, to) (at most ${LANE_MAX_HOURS} hours), running or finished, ` +
      'each with its job, by start; a worker Orbit does not know, or one that ran nothing then, has none. ' +
      "Only the runs of the caller's teams' jobs are listed: a worker runs every team's.",
  })
  @ApiOkResponse({ type: WorkerRunsResponse })
  @ApiErrors(400)
  async list(
    @Param('id') id: string,
    @Query() query: WorkerRunsQuery,
    @Caller() caller: Principal,
  ): Promise<WorkerRunsResponse> {
    const from = new Date(query.from);
    const to = new Date(query.to);
    checkLaneWindow(from, to);
    const limit = query.limit ?? LANE_PAGE.default;
    const runs = await this.runs.heldBetween(id, from, to, limit + 1, visibleTeams(caller) ?? undefined);
    return WorkerRunsResponse.from(id, from, to, runs, limit);
  }
}
