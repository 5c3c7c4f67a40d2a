/**
 * Whether a run counts against a limit, and which lane it waits in: its group's, or its job's
 * own. The claim's SQL uses the same text as the partial indexes the migrations created, so the
 * planner matches them; a test compares them with the database's own definitions.
 */
export const LIMITED = '(max_concurrent IS NOT NULL OR concurrency_group IS NOT NULL)';
export const LANE = `(CASE WHEN concurrency_group IS NOT NULL THEN 'group:' || concurrency_group ELSE 'job:' || job_id::text END)`;
