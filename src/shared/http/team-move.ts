import { TeamOwners } from '../application/team-owners.js';
import { ForbiddenError, NotFoundError } from '../domain/domain-errors.js';
import { holdsInTeam, roleInTeam, type Principal } from '../domain/principal.js';

/**
 * A job, a channel or a group moves to a team the caller administers too (the guard checked the
 * team it leaves): a team that is not theirs, or none, answers 404 as a missing one does; below
 * admin there, 403. `what` names the thing in the refusal ("a job").
 */
export async function mayMoveTo(caller: Principal, team: string, what: string, owners: TeamOwners): Promise<void> {
  if (roleInTeam(caller, team) === null || !(await owners.teamExists(team))) {
    throw new NotFoundError(`Team ${team} not found`, 'team');
  }
  if (!holdsInTeam(caller, team, 'admin')) {
    throw new ForbiddenError(
      `Moving ${what} to the team ${team} needs the admin role there; ${caller.name} has ${roleInTeam(caller, team)}`,
    );
  }
}
