import { Injectable } from '@nestjs/common';
import { Owned, TeamOwners } from '../../shared/application/team-owners.js';
import { Database } from '../../shared/infrastructure/database.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Each owned thing's team, by its id (a run's through its job, deleted or not). */
const TEAM_OF: Record<Owned, string> = {
  job: `SELECT team FROM jobs WHERE id = $1`,
  execution: `SELECT j.team FROM executions e JOIN jobs j ON j.id = e.job_id WHERE e.id = $1`,
  channel: `SELECT team FROM channels WHERE id = $1`,
  group: `SELECT team FROM concurrency_groups WHERE id = $1`,
};

@Injectable()
export class SqlTeamOwners extends TeamOwners {
  constructor(private readonly db: Database) {
    super();
  }

  async teamOf(owned: Owned, id: string): Promise<string | null | undefined> {
    if (!UUID.test(id)) return undefined; // not an id at all: the route's own checks answer
    const [row] = await this.db.rows<{ team: string | null }>(TEAM_OF[owned], [id]);
    return row?.team;
  }

  async teamExists(name: string): Promise<boolean> {
    return (await this.db.rows(`SELECT 1 FROM teams WHERE name = $1`, [name])).length === 1;
  }
}
