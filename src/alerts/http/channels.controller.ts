import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { MinRole } from '../../shared/http/access.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { Audited } from '../../shared/http/audited.decorator.js';
import { ListQueryDto } from '../../shared/http/list-query.dto.js';
import { ChannelsService } from '../application/channels.service.js';
import type { Channel } from '../domain/channel.js';
import { ChannelPageResponse, ChannelResponse, CreateChannelDto, UpdateChannelDto } from './dto/channel.dto.js';
import { DeliveryResponse } from './dto/delivery.dto.js';

/** Where alerts go (admin): answers never hold a channel's secrets. */
@ApiTags('alerts')
@ApiBearerAuth()
@MinRole('admin')
@Controller('channels')
export class ChannelsController {
  constructor(private readonly channels: ChannelsService) {}

  @Post()
  @Audited('channel.created')
  @ApiOperation({ summary: 'Create a channel: webhook, slack or email (admin)' })
  @ApiCreatedResponse({ type: ChannelResponse })
  @ApiErrors(400, 409)
  async create(@Body() body: CreateChannelDto): Promise<ChannelResponse> {
    return this.answer(await this.channels.create(body));
  }

  @Get()
  @ApiOperation({ summary: 'List channels, newest first (admin)' })
  @ApiOkResponse({ type: ChannelPageResponse })
  @ApiErrors(400)
  async list(@Query() query: ListQueryDto): Promise<ChannelPageResponse> {
    const page = await this.channels.list(query.toPageRequest());
    const users = await this.channels.usersOf(page.items);
    return {
      items: page.items.map((channel) => ChannelResponse.from(channel, users.get(channel.name))),
      nextCursor: page.nextCursor,
    };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a channel (admin)' })
  @ApiOkResponse({ type: ChannelResponse })
  @ApiErrors(400, 404)
  async get(@Param('id', ParseUUIDPipe) id: string): Promise<ChannelResponse> {
    return this.answer(await this.channels.get(id));
  }

  @Patch(':id')
  @Audited('channel.updated')
  @ApiOperation({
    summary: 'Change some fields of a channel (admin)',
    description:
      'The type stays. A secret left out stays as it was. A rename is refused (409) while jobs name the channel.',
  })
  @ApiOkResponse({ type: ChannelResponse })
  @ApiErrors(400, 404, 409)
  async update(@Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateChannelDto): Promise<ChannelResponse> {
    return this.answer(await this.channels.update(id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('channel.deleted')
  @ApiOperation({
    summary: 'Delete a channel and its deliveries (admin)',
    description: 'Refused (409) while the alerts of a job name it.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(400, 404, 409)
  async remove(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.channels.remove(id);
  }

  @Post(':id/test')
  @HttpCode(200)
  @Audited('channel.tested')
  @ApiOperation({
    summary: 'Send a test alert now (admin)',
    description: 'Answers the delivery after its first attempt; if that failed, it is retried like any other.',
  })
  @ApiOkResponse({ type: DeliveryResponse })
  @ApiErrors(400, 404)
  async test(@Param('id', ParseUUIDPipe) id: string): Promise<DeliveryResponse> {
    return DeliveryResponse.from(await this.channels.test(id), true);
  }

  private async answer(channel: Channel): Promise<ChannelResponse> {
    return ChannelResponse.from(channel, (await this.channels.usersOf([channel])).get(channel.name));
  }
}
