/** The range of PostgreSQL's `integer`, which stores exit codes and every other count the API accepts. */
export const INT32 = { min: -2_147_483_648, max: 2_147_483_647 } as const;
