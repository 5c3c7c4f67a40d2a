import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { DeliveryRepository } from '../application/delivery.repository.js';
import { DeliveryPageResponse, DeliveryResponse, ListDeliveriesQuery } from './dto/delivery.dto.js';

@ApiTags('alerts')
@ApiBearerAuth()
@Controller('deliveries')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveryRepository) {}

  @Get()
  @ApiOperation({ summary: 'List alert deliveries, newest first, each with every attempt' })
  @ApiOkResponse({ type: DeliveryPageResponse })
  @ApiErrors(400)
  async list(@Query() query: ListDeliveriesQuery): Promise<DeliveryPageResponse> {
    const page = await this.deliveries.list(
      { channelId: query.channel, jobId: query.jobId, status: query.status },
      query.toPageRequest(),
    );
    return { items: page.items.map(DeliveryResponse.from), nextCursor: page.nextCursor };
  }
}
