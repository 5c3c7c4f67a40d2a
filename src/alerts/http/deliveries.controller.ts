import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Principal } from '../../shared/domain/principal.js';
import { roleIncludes } from '../../shared/domain/role.js';
import { Caller } from '../../shared/http/access.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { DeliveryRepository } from '../application/delivery.repository.js';
import { DeliveryPageResponse, DeliveryResponse, ListDeliveriesQuery } from './dto/delivery.dto.js';

@ApiTags('alerts')
@ApiBearerAuth()
@Controller('deliveries')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveryRepository) {}

  @Get()
  @ApiOperation({
    summary: 'List alert deliveries, newest first, each with every attempt',
    description: "Admins read each attempt's error as recorded; the other roles its status only.",
  })
  @ApiOkResponse({ type: DeliveryPageResponse })
  @ApiErrors(400)
  async list(@Query() query: ListDeliveriesQuery, @Caller() caller: Principal): Promise<DeliveryPageResponse> {
    const page = await this.deliveries.list(
      { channelId: query.channel, jobId: query.jobId, status: query.status },
      query.toPageRequest(),
    );
    const detailed = roleIncludes(caller.role, 'admin');
    return { items: page.items.map((view) => DeliveryResponse.from(view, detailed)), nextCursor: page.nextCursor };
  }
}
