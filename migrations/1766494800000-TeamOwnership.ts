import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Jobs, alert channels and concurrency groups belong to a team; what exists goes to `default`.
 * A team that owns a live job, a channel or a group cannot be deleted (the foreign keys refuse
 * it); a deleted job's row, which keeps its history readable, loses its team with the team, and
 * is then seen by Orbit admins only. An audit event keeps the team it happened in (null: across
 * the organisation, or before teams), for a team's admins to read theirs.
 */
export class TeamOwnership1766494800000 implements MigrationInterface {
  name = 'TeamOwnership1766494800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE jobs
        ADD COLUMN team text DEFAULT 'default' REFERENCES teams (name) ON DELETE SET NULL,
        ADD CONSTRAINT jobs_team_check CHECK (team IS NOT NULL OR deleted_at IS NOT NULL)`);
    await db.query(`CREATE INDEX jobs_team_idx ON jobs (team)`);
    for (const table of ['channels', 'concurrency_groups']) {
      await db.query(`
        ALTER TABLE ${table} ADD COLUMN team text NOT NULL DEFAULT 'default' REFERENCES teams (name)`);
      await db.query(`CREATE INDEX ${table}_team_idx ON ${table} (team)`);
    }
    await db.query(`ALTER TABLE audit_events ADD COLUMN team text`);
    // what was done to jobs, runs, channels, groups and orbit files before teams was done in default's
    await db.query(`
      UPDATE audit_events SET team = 'default'
       WHERE split_part(action, '.', 1) IN ('job', 'execution', 'channel', 'concurrency-group', 'file')`);
    await db.query(`CREATE INDEX audit_events_team_idx ON audit_events (team, created_at DESC, id DESC)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE audit_events DROP COLUMN team`);
    for (const table of ['channels', 'concurrency_groups']) await db.query(`ALTER TABLE ${table} DROP COLUMN team`);
    await db.query(`ALTER TABLE jobs DROP COLUMN team`);
  }
}
