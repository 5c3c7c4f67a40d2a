import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A pause with a note and an optional instant at which the job resumes by itself, and the
 * index the timeline reads a job's pauses by.
 *
 * The note and the resume instant belong to a pause: a job that runs has neither (the check).
 * The scheduler finds the paused jobs due to resume through jobs_resume_idx, which holds only
 * the few jobs paused with a resume instant, so its pass pays next to nothing for it.
 *
 * The timeline tells a paused slot by the job's job.paused and job.resumed events:
 * events_job_pauses_idx holds only those (a job changes its state rarely), by job and instant.
 */
export class PauseNotesAndTimeline1765152000000 implements MigrationInterface {
  name = 'PauseNotesAndTimeline1765152000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE jobs ADD COLUMN paused_note text, ADD COLUMN resume_at timestamptz,
        ADD CONSTRAINT jobs_pause_check CHECK (NOT enabled OR (paused_note IS NULL AND resume_at IS NULL))`);
    await db.query(
      `CREATE INDEX jobs_resume_idx ON jobs (resume_at) WHERE resume_at IS NOT NULL AND deleted_at IS NULL`,
    );
    await db.query(
      `CREATE INDEX events_job_pauses_idx ON events (job_id, at) WHERE type IN ('job.paused', 'job.resumed')`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX events_job_pauses_idx`);
    await db.query(`DROP INDEX jobs_resume_idx`);
    await db.query(`ALTER TABLE jobs DROP CONSTRAINT jobs_pause_check, DROP COLUMN resume_at, DROP COLUMN paused_note`);
  }
}
