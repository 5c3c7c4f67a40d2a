import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { holdsInTeam, visibleTeams, type Principal } from '../../shared/domain/principal.js';
import { Caller, TeamFiltered } from '../../shared/http/access.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { DeliveryRepository } from '../application/delivery.repository.js';
import { DeliveryPageResponse, DeliveryResponse, ListDeliveriesQuery } from './dto/delivery.dto.js';

@ApiTags('alerts')
@ApiBearerAuth()
@Controller('deliveries')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveryRepository) {}

  @Get()
  @TeamFiltered()
  @ApiOperation({
    summary: "List the alert deliveries of the caller's teams' channels, newest first, each with every attempt",
    description:
      "A delivery belongs to its channel's team. The admins of that team read each attempt's error as recorded; " +
      'the other roles its status only.',
  })
  @ApiOkResponse({ type: DeliveryPageResponse })
  @ApiErrors(400)
  async list(@Query() query: ListDeliveriesQuery, @Caller() caller: Principal): Promise<DeliveryPageResponse> {
    const page = await this.deliveries.list(
      {
        channelId: query.channel,
        jobId: query.jobId,
        status: query.status,
        teams: visibleTeams(caller) ?? undefined,
      },
      query.toPageRequest(),
    );
    return {
      items: page.items.map((view) => DeliveryResponse.from(view, holdsInTeam(caller, view.team, 'admin'))),
      nextCursor: page.nextCursor,
    };
  }
}
