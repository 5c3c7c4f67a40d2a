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
import { teamsToShow, type Principal } from '../../shared/domain/principal.js';
import { Caller, MinRole, NewInTeam, OwnedBy, OwningTeam, TeamFiltered } from '../../shared/http/access.decorators.js';
import { mayMoveTo } from '../../shared/http/team-move.js';
import { ConcurrencyGroupsService } from '../application/concurrency-groups.service.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { Audited } from '../../shared/http/audited.decorator.js';
import {
  ConcurrencyGroupListResponse,
  ConcurrencyGroupResponse,
  CreateConcurrencyGroupDto,
  ListConcurrencyGroupsQuery,
  UpdateConcurrencyGroupDto,
} from './dto/concurrency-group.dto.js';
import { AuditedConcurrencyGroup } from './audited-states.js';

/**
 * Concurrency groups (admin of the group's team): limits shared by the jobs that name them. A
 * group belongs to a team, whose jobs alone name it; another team's answers 404 as a missing one.
 */
@ApiTags('concurrency-groups')
@ApiBearerAuth()
@MinRole('admin')
@Controller('concurrency-groups')
export class ConcurrencyGroupsController {
  constructor(
    private readonly groups: ConcurrencyGroupsService,
    private readonly owners: TeamOwners,
  ) {}

  @Post()
  @NewInTeam()
  @Audited('concurrency-group.created')
  @ApiOperation({
    summary: "Create a concurrency group: a limit shared by the jobs that name it (admin of the group's team)",
  })
  @ApiCreatedResponse({ type: ConcurrencyGroupResponse })
  @ApiErrors(400, 404, 409)
  async create(
    @Body() { team: _team, ...body }: CreateConcurrencyGroupDto,
    @OwningTeam() team: string,
  ): Promise<ConcurrencyGroupResponse> {
    return ConcurrencyGroupResponse.from(await this.groups.create(body, team));
  }

  @Get()
  @TeamFiltered()
  @ApiOperation({ summary: "The concurrency groups of the caller's teams, by name (admin)" })
  @ApiOkResponse({ type: ConcurrencyGroupListResponse })
  @ApiErrors(400)
  async list(
    @Query() query: ListConcurrencyGroupsQuery,
    @Caller() caller: Principal,
  ): Promise<ConcurrencyGroupListResponse> {
    return { items: (await this.groups.list(teamsToShow(caller, query.team))).map(ConcurrencyGroupResponse.from) };
  }

  @Get(':id')
  @OwnedBy('group')
  @ApiOperation({ summary: "Read a concurrency group (admin of the group's team)" })
  @ApiOkResponse({ type: ConcurrencyGroupResponse })
  @ApiErrors(400, 404)
  async get(@Param('id', ParseUUIDPipe) id: string): Promise<ConcurrencyGroupResponse> {
    return ConcurrencyGroupResponse.from(await this.groups.get(id));
  }

  @Patch(':id')
  @OwnedBy('group')
  @Audited('concurrency-group.updated', AuditedConcurrencyGroup)
  @ApiOperation({
    summary: "Change the limit, the name or the team (admin of the group's team)",
    description:
      'A new limit holds from the next claim on. A rename is refused (409) while jobs name the group. `team` ' +
      'moves the group to another team: it needs the admin role in both, and is refused (409) while jobs name it.',
  })
  @ApiOkResponse({ type: ConcurrencyGroupResponse })
  @ApiErrors(400, 404, 409)
  async update(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() { team, ...body }: UpdateConcurrencyGroupDto,
    @Caller() caller: Principal,
  ): Promise<ConcurrencyGroupResponse> {
    if (team !== undefined) await mayMoveTo(caller, team, 'a concurrency group', this.owners);
    return ConcurrencyGroupResponse.from(await this.groups.update(id, body, team));
  }

  @Delete(':id')
  @OwnedBy('group')
  @HttpCode(204)
  @Audited('concurrency-group.deleted', AuditedConcurrencyGroup)
  @ApiOperation({
    summary: "Delete a concurrency group (admin of the group's team)",
    description: 'Refused (409) while jobs name it.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(400, 404, 409)
  async remove(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.groups.remove(id);
  }
}
