import { randomUUID } from 'node:crypto';
import {
  LIST_SQL,
  TARGET_LIST_SQL,
  TARGET_TEAMS_LIST_SQL,
  TEAMS_LIST_SQL,
} from '../../src/audit/infrastructure/sql-audit-log.js';
import { planCost } from '../support/plan-cost.js';
import { createTestDatabase, TestDatabase } from '../support/test-database.js';

const ENTRIES = 200_000;
const T0 = new Date('2026-01-01T00:00:00.000Z');
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * The reads about one target (a run's cancellation, a job's changes) find its few entries among
 * 200,000, the oldest of the trail among them, in a few pages, by the generic plan of the prepared
 * statement (one that let any target through when none is given walked the whole trail's
 * newest-first index: 4,440 buffers here). Counted in buffers, which no machine's speed changes.
 */
describe("the audit trail's reads about one target, in a long trail", () => {
  let db: TestDatabase;
  const target = randomUUID();

  beforeAll(async () => {
    db = await createTestDatabase();
    // an entry a second, 40,000 targets of 5 entries each, actions, actors and teams taking turns
    // (one entry in ten is the organisation's, with no team)
    await db.sql(
      `INSERT INTO audit_events (id, created_at, actor, action, target_id, details, team)
       SELECT gen_random_uuid(), $1::timestamptz + g * interval '1 second', 'actor-' || (g % 7),
              (ARRAY['job.updated', 'execution.cancelled', 'job.paused'])[1 + g % 3],
              md5((g % ($2::int / 5))::text)::uuid::text, '{}',
              CASE WHEN g % 10 = 0 THEN NULL ELSE 'team-' || (g % 3) END
         FROM generate_series(1, $2::int) AS g`,
      [T0, ENTRIES],
    );
    // the target's entries are the trail's oldest: a newest-first walk of the whole trail meets them last
    await db.sql(
      `INSERT INTO audit_events (id, created_at, actor, action, target_id, details)
       SELECT gen_random_uuid(), $1::timestamptz - g * interval '1 minute', 'ops', 'execution.cancelled', $2, '{}'
         FROM generate_series(1, 3) AS g`,
      [T0, target],
    );
    await db.sql('VACUUM ANALYZE audit_events');
    // the repository's statements are prepared, and run by a plan made without their parameters
    // once custom plans cost no less: that plan is the one measured
    await db.sql('SET plan_cache_mode = force_generic_plan');
    await db.sql(`PREPARE list AS ${LIST_SQL}`);
    await db.sql(`PREPARE target_list AS ${TARGET_LIST_SQL}`);
    await db.sql(`PREPARE teams_list AS ${TEAMS_LIST_SQL}`);
    await db.sql(`PREPARE target_teams_list AS ${TARGET_TEAMS_LIST_SQL}`);
  }, 120_000);
  afterAll(() => db?.drop());

  /** The list's parameters as SQL literals: the window (open unless given), the filters, the page's size. */
  const params = (filters: { from?: Date; to?: Date; actions?: string[]; limit?: number } = {}) => [
    `'${filters.to?.toISOString() ?? 'infinity'}'`,
    `'${NIL_UUID}'`,
    `'${filters.from?.toISOString() ?? '-infinity'}'`,
    filters.actions ? `ARRAY[${filters.actions.map((action) => `'${action}'`).join(', ')}]` : 'NULL',
    'NULL',
    (filters.limit ?? 50) + 1,
  ];
  /** What a run of a prepared statement costs with these parameters (EXECUTE takes no bound ones). */
  const cost = (statement: string, args: unknown[]) => planCost(db.sql, `EXECUTE ${statement}(${args.join(', ')})`);

  it("reads a target's entries, newest first, in a few pages", async () => {
    const read = await cost('target_list', [...params(), `'${target}'`]);
    expect(read.rows).toBe(3);
    expect(read.buffers).toBeLessThan(20);
  });

  it("finds a run's cancel in the minute after it ended, as the cancellation's inference asks", async () => {
    const at = new Date(T0.getTime() - 60_000 - 1);
    const window = { from: at, to: new Date(at.getTime() + 60_000), actions: ['execution.cancelled'], limit: 1 };
    const read = await cost('target_list', [...params(window), `'${target}'`]);
    expect(read.rows).toBe(1);
    expect(read.buffers).toBeLessThan(20);
  });

  it("reads a target that has no entry in a few pages, as a new job's page does", async () => {
    const read = await cost('target_list', [...params(), `'${randomUUID()}'`]);
    expect(read.rows).toBe(0);
    expect(read.buffers).toBeLessThan(20);
  });

  it('reads the newest page of the whole trail in a few pages, as before', async () => {
    const read = await cost('list', params());
    expect(read.rows).toBe(51);
    expect(read.buffers).toBeLessThan(20);
  });

  it("reads the newest page of some teams' entries in a few pages, each team's from its own index range", async () => {
    const read = await cost('teams_list', [...params(), `ARRAY['team-1', 'team-2']`]);
    expect(read.rows).toBe(51);
    expect(read.buffers).toBeLessThan(30);
    const { rows } = await db.sql(`EXECUTE teams_list(${[...params(), `ARRAY['team-1', 'team-2']`].join(', ')})`);
    expect(new Set(rows.map((row: { team: string }) => row.team))).toEqual(new Set(['team-1', 'team-2']));
  });

  it("reads no entry of a team that has none, nor the organisation's, in a few pages", async () => {
    const read = await cost('teams_list', [...params(), `ARRAY['team-9']`]);
    expect(read.rows).toBe(0);
    expect(read.buffers).toBeLessThan(10);
  });

  it("reads a target's entries in some teams in a few pages", async () => {
    const read = await cost('target_teams_list', [...params(), `'${target}'`, `ARRAY['team-1']`]);
    expect(read.rows).toBe(0); // the target's entries are the organisation's (no team)
    expect(read.buffers).toBeLessThan(20);
  });
});
