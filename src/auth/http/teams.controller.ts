import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Principal } from '../../shared/domain/principal.js';
import { Caller, PeopleCheckedByRoute, TeamsCheckedByRoute } from '../../shared/http/access.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { Audited } from '../../shared/http/audited.decorator.js';
import { TeamsService } from '../application/teams.service.js';
import { CreateTeamDto, GrantDto, GrantsDto, GrantsResponse, TeamListResponse, TeamResponse } from './dto/team.dto.js';

/** Each route checks the team itself for a person: one with no role in `default` may administer their team. */
@ApiTags('teams')
@ApiBearerAuth()
@PeopleCheckedByRoute()
@TeamsCheckedByRoute()
@Controller('teams')
export class TeamsController {
  constructor(private readonly teams: TeamsService) {}

  @Get()
  @ApiOperation({ summary: "The teams the caller may see, with the caller's role in each (an Orbit admin sees all)" })
  @ApiOkResponse({ type: TeamListResponse })
  @ApiErrors()
  async list(@Caller() caller: Principal): Promise<TeamListResponse> {
    return { items: (await this.teams.list(caller)).map((team) => TeamResponse.from(team)) };
  }

  @Post()
  @Audited('team.created')
  @ApiOperation({ summary: 'Create a team (Orbit admin)' })
  @ApiCreatedResponse({ type: TeamResponse })
  @ApiErrors(400, 409)
  async create(@Caller() caller: Principal, @Body() body: CreateTeamDto): Promise<TeamResponse> {
    return TeamResponse.from({ ...(await this.teams.create(caller, body.name)), role: 'admin' });
  }

  @Delete(':name')
  @HttpCode(204)
  @Audited('team.deleted')
  @ApiOperation({ summary: 'Delete a team (Orbit admin); 409 while it owns anything' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404, 409)
  async delete(@Caller() caller: Principal, @Param('name') name: string): Promise<void> {
    await this.teams.delete(caller, name);
  }

  @Get(':name/grants')
  @ApiOperation({ summary: "Who has which role in the team: groups and people (the team's admins, Orbit admins)" })
  @ApiOkResponse({ type: GrantsResponse })
  @ApiErrors(404)
  async grants(@Caller() caller: Principal, @Param('name') name: string): Promise<GrantsResponse> {
    return { team: name, grants: (await this.teams.grants(caller, name)).map((grant) => GrantDto.from(grant)) };
  }

  @Put(':name/grants')
  @Audited('team.grants_replaced')
  @ApiOperation({ summary: "Replace the team's grants (the team's admins, Orbit admins)" })
  @ApiOkResponse({ type: GrantsResponse })
  @ApiErrors(400, 404)
  async replaceGrants(
    @Caller() caller: Principal,
    @Param('name') name: string,
    @Body() body: GrantsDto,
  ): Promise<GrantsResponse> {
    const grants = await this.teams.replaceGrants(caller, name, body.grants);
    return { team: name, grants: grants.map((grant) => GrantDto.from(grant)) };
  }
}
