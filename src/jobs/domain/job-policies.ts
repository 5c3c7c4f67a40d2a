/** What a scheduler does with slots that passed while no scheduler node was running. */
export const MISFIRE_POLICIES = ['RUN_ONCE', 'SKIP'] as const;
export type MisfirePolicy = (typeof MISFIRE_POLICIES)[number];

/** What a fire does while an earlier execution of the same job is still QUEUED or RUNNING. */
export const CONCURRENCY_POLICIES = ['ALLOW', 'FORBID', 'REPLACE'] as const;
export type ConcurrencyPolicy = (typeof CONCURRENCY_POLICIES)[number];
