import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ForbiddenError } from '../../shared/domain/domain-errors.js';
import {
  actorName,
  holdsInTeam,
  roleInTeam,
  teamsToShow,
  visibleTeams,
  type Principal,
} from '../../shared/domain/principal.js';
import { Caller, MinRole, NewInTeam, OwningTeam, TeamFiltered } from '../../shared/http/access.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { Audited } from '../../shared/http/audited.decorator.js';
import { ApplyService } from '../application/apply.service.js';
import { ApplyRequestDto, ApplyResponse } from './dto/apply.dto.js';
import { entriesOf, OrbitFileDto } from './dto/orbit-file.dto.js';
import { OrbitFileQuery } from './dto/orbit-file.query.js';

/** Jobs as code: an orbit file applied to one team in one transaction (admin of the team, as the writes it makes). */
@ApiTags('apply')
@ApiBearerAuth()
@Controller()
export class ApplyController {
  constructor(private readonly service: ApplyService) {}

  @Post('apply')
  @HttpCode(200)
  @NewInTeam()
  @Audited('file.applied')
  @ApiOperation({
    summary: "Make a team's jobs and channels match an orbit file, in one transaction (admin of the team)",
    description:
      "Creates and updates the channels and jobs the file names in the team (`team`, else the caller's only team; " +
      'the jobs take the defaults for the fields they leave out) and, with prune, deletes the jobs of the team ' +
      "an earlier apply created that it no longer names. Other teams' jobs and channels are not compared, " +
      'changed or deleted: a name one of them has is a 409. Answers the plan. All or nothing: a refused entry ' +
      'is a 400 (or 409) naming it and its field, and nothing is changed. dryRun answers the same plan, with ' +
      'the same refusals, and changes nothing. The schema of the file: GET /schemas/orbit-file.json.',
  })
  @ApiOkResponse({ type: ApplyResponse })
  @ApiErrors(400, 404, 409)
  async apply(
    @Body() body: ApplyRequestDto,
    @OwningTeam() team: string,
    @Caller() caller: Principal,
  ): Promise<ApplyResponse> {
    const dryRun = body.dryRun ?? false;
    const prune = body.prune ?? false;
    const items = await this.service.apply(entriesOf(body.file), {
      dryRun,
      prune,
      actor: actorName(caller),
      team,
      visible: visibleTeams(caller) ?? undefined,
    });
    return { dryRun, team, items };
  }

  @Get('orbit-file')
  @MinRole('admin')
  @TeamFiltered()
  @ApiOperation({
    summary:
      'The channels and jobs of the teams the caller administers, as an orbit file (admin: it describes the channels)',
    description:
      "What POST /apply takes, and would leave unchanged: with `team`, that team's, to apply with the same `team`. " +
      'Without it, those of every team the caller is an admin of, in one file. Jobs list the fields that differ ' +
      "from the defaults; channels' secrets and URLs are never answered: they are ${ORBIT_CHANNEL_<NAME>_URL} and " +
      '_SECRET placeholders.',
  })
  @ApiOkResponse({ type: OrbitFileDto })
  @ApiErrors(400)
  async current(@Query() query: OrbitFileQuery, @Caller() caller: Principal): Promise<OrbitFileDto> {
    return this.service.current(administered(caller, query.team));
  }
}

/**
 * The teams whose channels and jobs the caller may export (undefined: every team's): those they
 * hold the admin role in, narrowed to `only`. A team of theirs where they are less is refused; a
 * team that is not theirs has nothing to export, as a list of jobs filtered by it has none.
 */
function administered(caller: Principal, only?: string): string[] | undefined {
  const teams = teamsToShow(caller, only);
  if (teams === undefined) return undefined;
  if (only !== undefined && teams.length > 0 && !holdsInTeam(caller, only, 'admin')) {
    throw new ForbiddenError(
      `Exporting the team ${only} needs the admin role there; ${caller.name} has ${roleInTeam(caller, only)}`,
    );
  }
  return teams.filter((team) => holdsInTeam(caller, team, 'admin'));
}
