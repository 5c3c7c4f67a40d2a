import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { TeamOwners } from '../../shared/application/team-owners.js';
import { teamsToShow, visibleTeams, type Principal } from '../../shared/domain/principal.js';
import { Caller, MinRole, NewInTeam, OwnedBy, OwningTeam, TeamFiltered } from '../../shared/http/access.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { Audited } from '../../shared/http/audited.decorator.js';
import { mayMoveTo } from '../../shared/http/team-move.js';
import { ChannelsService } from '../application/channels.service.js';
import type { Channel } from '../domain/channel.js';
import {
  ChannelPageResponse,
  ChannelResponse,
  CreateChannelDto,
  ListChannelsQuery,
  UpdateChannelDto,
} from './dto/channel.dto.js';
import { DeliveryResponse } from './dto/delivery.dto.js';

/**
 * Where alerts go (admin of the channel's team): answers never hold a channel's secrets. A
 * channel belongs to a team, whose jobs alone name it; another team's answers 404 as a missing one.
 */
@ApiTags('alerts')
@ApiBearerAuth()
@MinRole('admin')
@Controller('channels')
export class ChannelsController {
  constructor(
    private readonly channels: ChannelsService,
    private readonly owners: TeamOwners,
  ) {}

  @Post()
  @NewInTeam()
  @Audited('channel.created')
  @ApiOperation({ summary: "Create a channel: webhook, slack or email (admin of the channel's team)" })
  @ApiCreatedResponse({ type: ChannelResponse })
  @ApiErrors(400, 404, 409)
  async create(
    @Body() { team: _team, ...body }: CreateChannelDto,
    @OwningTeam() team: string,
    @Caller() caller: Principal,
  ): Promise<ChannelResponse> {
    return this.answer(await this.channels.create(body, team), caller);
  }

  @Get()
  @TeamFiltered()
  @ApiOperation({ summary: "List the channels of the caller's teams, newest first (admin)" })
  @ApiOkResponse({ type: ChannelPageResponse })
  @ApiErrors(400)
  async list(@Query() query: ListChannelsQuery, @Caller() caller: Principal): Promise<ChannelPageResponse> {
    const page = await this.channels.list(query.toPageRequest(), teamsToShow(caller, query.team));
    const users = await this.channels.usersOf(page.items, visibleTeams(caller) ?? undefined);
    return {
      items: page.items.map((channel) => ChannelResponse.from(channel, users.get(channel.name))),
      nextCursor: page.nextCursor,
    };
  }

  @Get(':id')
  @OwnedBy('channel')
  @ApiOperation({ summary: "Read a channel (admin of the channel's team)" })
  @ApiOkResponse({ type: ChannelResponse })
  @ApiErrors(400, 404)
  async get(@Param('id', ParseUUIDPipe) id: string, @Caller() caller: Principal): Promise<ChannelResponse> {
    return this.answer(await this.channels.get(id), caller);
  }

  @Patch(':id')
  @OwnedBy('channel')
  @Audited('channel.updated')
  @ApiOperation({
    summary: "Change some fields of a channel (admin of the channel's team)",
    description:
      'The type stays. A secret left out stays as it was. A rename is refused (409) while jobs name the channel. ' +
      '`team` moves the channel to another team: it needs the admin role in both, and is refused (409) while ' +
      'jobs name it.',
  })
  @ApiOkResponse({ type: ChannelResponse })
  @ApiErrors(400, 404, 409)
  async update(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() { team, ...body }: UpdateChannelDto,
    @Caller() caller: Principal,
  ): Promise<ChannelResponse> {
    if (team !== undefined) await mayMoveTo(caller, team, 'a channel', this.owners);
    return this.answer(await this.channels.update(id, body, team), caller);
  }

  @Delete(':id')
  @OwnedBy('channel')
  @HttpCode(204)
  @Audited('channel.deleted')
  @ApiOperation({
    summary: "Delete a channel and its deliveries (admin of the channel's team)",
    description: 'Refused (409) while the alerts of a job name it.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(400, 404, 409)
  async remove(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.channels.remove(id);
  }

  @Post(':id/test')
  @OwnedBy('channel')
  @HttpCode(200)
  @Audited('channel.tested')
  @ApiOperation({
    summary: "Send a test alert now (admin of the channel's team)",
    description: 'Answers the delivery after its first attempt; if that failed, it is retried like any other.',
  })
  @ApiOkResponse({ type: DeliveryResponse })
  @ApiErrors(400, 404)
  async test(@Param('id', ParseUUIDPipe) id: string): Promise<DeliveryResponse> {
    return DeliveryResponse.from(await this.channels.test(id), true);
  }

  /** The channel with the jobs that name it, of the caller's teams only. */
  private async answer(channel: Channel, caller: Principal): Promise<ChannelResponse> {
    const users = await this.channels.usersOf([channel], visibleTeams(caller) ?? undefined);
    return ChannelResponse.from(channel, users.get(channel.name));
  }
}
