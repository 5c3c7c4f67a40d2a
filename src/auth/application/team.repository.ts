import type { Principal } from '../../shared/domain/principal.js';
import { Grant, PersonClaims, personKeys, personPrincipal } from '../domain/person.js';

export interface Team {
  name: string;
  createdAt: Date;
}

export abstract class TeamRepository {
  abstract list(): Promise<Team[]>;
  abstract exists(name: string): Promise<boolean>;
  /** false when a team of that name exists already. */
  abstract create(team: Team): Promise<boolean>;
  /** Refused (ConflictError) while the team owns anything; false when there is no such team. */
  abstract delete(name: string): Promise<boolean>;
  abstract grants(team: string): Promise<Grant[]>;
  /** The team's grants become exactly these, in one transaction. */
  abstract replaceGrants(team: string, grants: Grant[]): Promise<void>;
  /** The grants that name one of these groups or one of these people (by email or user name, as stored: lower case). */
  abstract grantsFor(groups: string[], personKeys: string[]): Promise<Grant[]>;

  /** The caller a person is now: what today's grants give them (an Orbit admin when in one of `adminGroups`). */
  async personAsCaller(
    person: PersonClaims & { userId: string | null },
    adminGroups: readonly string[],
    via: Principal['via'],
  ): Promise<Principal> {
    return personPrincipal(person, await this.grantsFor(person.groups, personKeys(person)), adminGroups, via);
  }
}
