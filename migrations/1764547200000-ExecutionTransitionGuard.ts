import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The database learns the lifecycle too, as a second line of defence: an UPDATE that moves
 * `status` along an edge the domain does not allow is rejected, whoever writes it. The
 * allowed edges live in a table that a test compares with the domain's TRANSITIONS.
 */
export class ExecutionTransitionGuard1764547200000 implements MigrationInterface {
  name = 'ExecutionTransitionGuard1764547200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE execution_transitions (
        from_status text NOT NULL,
        to_status text NOT NULL,
        PRIMARY KEY (from_status, to_status)
      )`);
    await db.query(`
      INSERT INTO execution_transitions (from_status, to_status) VALUES
        ('QUEUED', 'RUNNING'),
        ('RUNNING', 'SUCCEEDED'),
        ('RUNNING', 'FAILED'),
        ('QUEUED', 'CANCELLED'),
        ('RUNNING', 'CANCELLED')`);
    await db.query(`
      CREATE FUNCTION orbit_guard_execution_transition() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status IS DISTINCT FROM OLD.status AND NOT EXISTS (
          SELECT 1 FROM execution_transitions WHERE from_status = OLD.status AND to_status = NEW.status
        ) THEN
          RAISE EXCEPTION 'Illegal execution transition from % to %', OLD.status, NEW.status
            USING ERRCODE = 'check_violation', CONSTRAINT = 'executions_transition_check';
        END IF;
        RETURN NEW;
      END $$`);
    await db.query(`
      CREATE TRIGGER executions_transition_guard BEFORE UPDATE ON executions
      FOR EACH ROW EXECUTE FUNCTION orbit_guard_execution_transition()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER executions_transition_guard ON executions`);
    await db.query(`DROP FUNCTION orbit_guard_execution_transition`);
    await db.query(`DROP TABLE execution_transitions`);
  }
}
