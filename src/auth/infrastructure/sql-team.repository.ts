import { Injectable } from '@nestjs/common';
import { ConflictError } from '../../shared/domain/domain-errors.js';
import { Database } from '../../shared/infrastructure/database.js';
import { Team, TeamRepository } from '../application/team.repository.js';
import { DEFAULT_TEAM } from '../../shared/domain/principal.js';
import { Grant } from '../domain/person.js';

const GRANT = `team, kind, subject, role`;

@Injectable()
export class SqlTeamRepository extends TeamRepository {
  constructor(private readonly db: Database) {
    super();
  }

  list(): Promise<Team[]> {
    return this.db.rows<Team>(`SELECT name, created_at AS "createdAt" FROM teams ORDER BY name`);
  }

  async exists(name: string): Promise<boolean> {
    return (await this.db.rows(`SELECT 1 FROM teams WHERE name = $1`, [name])).length === 1;
  }

  async create(team: Team): Promise<boolean> {
    const rows = await this.db.rows(
      `INSERT INTO teams (name, created_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING name`,
      [team.name, team.createdAt],
    );
    return rows.length === 1;
  }

  async delete(name: string): Promise<boolean> {
    if (name === DEFAULT_TEAM) {
      throw new ConflictError(
        `The team ${DEFAULT_TEAM} owns every job, channel and group made before teams: it cannot be deleted`,
      );
    }
    return this.db.run(async () => {
      // the row lock keeps a job, channel or group from joining the team while it is checked
      if ((await this.db.rows(`SELECT 1 FROM teams WHERE name = $1 FOR UPDATE`, [name])).length === 0) return false;
      const [owned] = await this.db.rows<{ jobs: number; channels: number; groups: number }>(
        `SELECT (SELECT count(*)::int FROM jobs WHERE team = $1 AND deleted_at IS NULL) AS jobs,
                (SELECT count(*)::int FROM channels WHERE team = $1) AS channels,
                (SELECT count(*)::int FROM concurrency_groups WHERE team = $1) AS groups`,
        [name],
      );
      const held = [
        counted(owned!.jobs, 'job'),
        counted(owned!.channels, 'alert channel'),
        counted(owned!.groups, 'concurrency group'),
      ].filter(Boolean);
      if (held.length > 0) {
        throw new ConflictError(
          `The team ${name} owns ${held.join(', ')}: move them to another team or delete them first`,
        );
      }
      await this.db.rows(`DELETE FROM teams WHERE name = $1`, [name]);
      return true;
    });
  }

  grants(team: string): Promise<Grant[]> {
    return this.db.rows<Grant>(`SELECT ${GRANT} FROM team_grants WHERE team = $1 ORDER BY kind, subject`, [team]);
  }

  replaceGrants(team: string, grants: Grant[]): Promise<void> {
    return this.db.run(async () => {
      // the team's row is locked, so two replacements of one team's grants take turns
      await this.db.rows(`SELECT 1 FROM teams WHERE name = $1 FOR UPDATE`, [team]);
      await this.db.rows(`DELETE FROM team_grants WHERE team = $1`, [team]);
      if (grants.length === 0) return;
      await this.db.rows(
        `INSERT INTO team_grants (team, kind, subject, role)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[])`,
        [team, grants.map((g) => g.kind), grants.map((g) => g.subject), grants.map((g) => g.role)],
      );
    });
  }

  grantsFor(groups: string[], personKeys: string[]): Promise<Grant[]> {
    return this.db.rows<Grant>(
      `SELECT ${GRANT} FROM team_grants
        WHERE (kind = 'group' AND subject = ANY($1::text[])) OR (kind = 'user' AND subject = ANY($2::text[]))`,
      [groups, personKeys],
    );
  }
}

function counted(count: number, thing: string): string {
  return count === 0 ? '' : `${count} ${thing}${count === 1 ? '' : 's'}`;
}
