/**
 * Whether a run counts against a limit, and which lane it waits in: its group's, or its job's
 * own. The claim's SQL uses the same text as the partial indexes the migrations created, so the
 * planner matches them; a test compares them with the database's own definitions.
 */
export const LIMITED = '(max_concurrent IS NOT NULL OR concurrency_group IS NOT NULL)';
export const LANE = `(CASE WHEN concurrency_group IS NOT NULL THEN 'group:' || concurrency_group ELSE 'job:' || job_id::text END)`;

/**
 * The earliest due of the queued runs with no limit that `and` keeps (` AND …` on executions'
 * own columns, or nothing). executions_claim_idx holds them by priority, then due: each
 * priority's first due entry that passes is read, skipping from one priority to the next (a queue
 * holds few), so the read does not grow with the queue.
 */
const earliestFreeDue = (and: string) => `(WITH RECURSIVE priorities (priority) AS (
    (SELECT priority FROM executions WHERE status = 'QUEUED' AND NOT ${LIMITED} ORDER BY priority DESC LIMIT 1)
    UNION ALL
    SELECT (SELECT e.priority FROM executions e WHERE e.status = 'QUEUED' AND NOT ${LIMITED} AND e.priority < p.priority
             ORDER BY e.priority DESC LIMIT 1)
      FROM priorities p WHERE p.priority IS NOT NULL)
  SELECT min((SELECT due_at FROM executions
               WHERE status = 'QUEUED' AND NOT ${LIMITED} AND priority = p.priority${and}
               ORDER BY due_at LIMIT 1))
    FROM priorities p WHERE p.priority IS NOT NULL)`;

/**
 * The earliest due of all queued runs that `and` keeps: the free ones' (above), and the limited
 * ones' first entry in executions_due_idx, which holds theirs only.
 */
export const earliestDue = (and: string) =>
  `least(${earliestFreeDue(and)},
    (SELECT due_at FROM executions WHERE status = 'QUEUED' AND ${LIMITED}${and} ORDER BY due_at LIMIT 1))`;
