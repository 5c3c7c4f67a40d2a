import { Injectable } from '@nestjs/common';
import { Clock } from '../../shared/domain/clock.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../shared/domain/domain-errors.js';
import { roleInTeam, type Principal } from '../../shared/domain/principal.js';
import type { Role } from '../../shared/domain/role.js';
import type { Grant } from '../domain/person.js';
import { canAdministerTeam, canSeeTeam, checkGrants, checkTeamName, mustBeOrbitAdmin } from '../domain/team-access.js';
import { Team, TeamRepository } from './team.repository.js';

/** Teams and their grants, as the caller may see and manage them: another team answers 404. */
@Injectable()
export class TeamsService {
  constructor(
    private readonly teams: TeamRepository,
    private readonly clock: Clock,
  ) {}

  async list(caller: Principal): Promise<(Team & { role: Role | null })[]> {
    const all = await this.teams.list();
    return all
      .filter((team) => canSeeTeam(caller, team.name))
      .map((team) => ({ ...team, role: roleInTeam(caller, team.name) }));
  }

  async create(caller: Principal, name: unknown): Promise<Team> {
    mustBeOrbitAdmin(caller, 'create a team');
    const team = { name: checkTeamName(name), createdAt: this.clock.now() };
    if (!(await this.teams.create(team))) throw new ConflictError(`A team named ${team.name} exists already`, 'name');
    return team;
  }

  async delete(caller: Principal, name: string): Promise<void> {
    await this.visible(caller, name);
    mustBeOrbitAdmin(caller, 'delete a team');
    if (!(await this.teams.delete(name))) throw notFound(name);
  }

  async grants(caller: Principal, team: string): Promise<Grant[]> {
    await this.administered(caller, team);
    return this.teams.grants(team);
  }

  async replaceGrants(caller: Principal, team: string, given: unknown): Promise<Grant[]> {
    await this.administered(caller, team);
    const grants = checkGrants(team, given);
    await this.teams.replaceGrants(team, grants);
    return this.teams.grants(team);
  }

  private async visible(caller: Principal, name: string): Promise<void> {
    if (!canSeeTeam(caller, name) || !(await this.teams.exists(name))) throw notFound(name);
  }

  private async administered(caller: Principal, name: string): Promise<void> {
    await this.visible(caller, name);
    if (!canAdministerTeam(caller, name)) {
      throw new ForbiddenError(
        `Only an admin of the team ${name} (or an Orbit admin) manages its grants: this needs the admin role in ${name}`,
      );
    }
  }
}

const notFound = (name: string) => new NotFoundError(`Team ${name} not found`);
