import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { JobTeamLookup } from '../application/event-teams.js';

@Injectable()
export class SqlJobTeamLookup extends JobTeamLookup {
  constructor(private readonly db: Database) {
    super();
  }

  async teamsOf(jobIds: readonly string[]): Promise<Map<string, string | null>> {
    const rows = await this.db.rows<{ id: string; team: string | null }>(
      `SELECT id, team FROM jobs WHERE id = ANY ($1::uuid[])`,
      [jobIds],
    );
    return new Map(rows.map((row) => [row.id, row.team]));
  }
}
