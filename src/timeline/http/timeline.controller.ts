import { OwnedBy } from '../../shared/http/access.decorators.js';
import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { TIMELINE_MAX_SLOTS, TimelineService } from '../application/timeline.service.js';
import { TimelineQuery } from './dto/timeline.query.js';
import { TimelineResponse } from './dto/timeline.response.js';

@ApiTags('jobs')
@ApiBearerAuth()
@Controller('jobs')
export class TimelineController {
  constructor(private readonly timelines: TimelineService) {}

  @Get(':id/timeline')
  @OwnedBy('job')
  @ApiOperation({
    summary: 'Why it did (not) run: each slot of the job in a window, with its fate',
    description:
      `Every slot of the job's schedule in [from, to) (at most ${TIMELINE_MAX_SLOTS}: a longer window is a 400), ` +
      'each fired, skipped, missed, paused, upcoming or unknown, from the executions and the events the scheduler ' +
      'recorded (kept as long as retention keeps them).',
  })
  @ApiOkResponse({ type: TimelineResponse })
  @ApiErrors(400, 404)
  async timeline(@Param('id', ParseUUIDPipe) id: string, @Query() query: TimelineQuery): Promise<TimelineResponse> {
    return TimelineResponse.from(await this.timelines.timeline(id, new Date(query.from), new Date(query.to)));
  }
}
