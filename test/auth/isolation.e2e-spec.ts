import { createHash, randomUUID } from 'node:crypto';
import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import request from 'supertest';
import { PUBLIC, TEAMS, type TeamRule } from '../../src/shared/http/access.decorators.js';
import {
  bearer,
  Endpoint,
  ENDPOINTS,
  fixtures,
  Fixtures,
  label,
  PUBLIC_ROUTES,
  Role,
  ROLES,
  send,
} from '../support/endpoints.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';

/*
 * The team isolation matrix. Every route of the app says how it keeps to the caller's teams (a
 * TeamRule); this file reads those rules from the running app, so a new route without one fails
 * here, and sends every endpoint of the route table as every kind of caller: nobody, the
 * viewer, operator and admin of the team that owns the target (default, where the route table
 * makes its ids), the same of another team, an Orbit admin, and a personal token that expired.
 * The expected answer follows from the rule; a refusal changes nothing, and what a list or a
 * stream answers another team names nothing of default's.
 */

/** The team every target of the route table belongs to, and the team that must not see it. */
const OWNER = 'default';
const OTHER = 'other';

type Caller =
  | { kind: 'anonymous' }
  | { kind: 'expired personal token' }
  | { kind: 'Orbit admin' }
  | { kind: 'team token'; team: typeof OWNER | typeof OTHER; role: Role };

const CALLERS: Caller[] = [
  { kind: 'anonymous' },
  { kind: 'expired personal token' },
  { kind: 'Orbit admin' },
  ...([OWNER, OTHER] as const).flatMap((team) => ROLES.map((role) => ({ kind: 'team token' as const, team, role }))),
];

const nameOf = (caller: Caller): string =>
  caller.kind === 'team token' ? `${caller.role} of ${caller.team}` : caller.kind;

/**
 * The routes that check teams themselves (rule `own`): what a team's token gets there, by whether
 * it is of the target's team and has the route's role. A team token manages no tokens, teams or
 * people; its admin reads its own team's grants, and no other team shows.
 */
const OWN_RULES: Record<string, (ownTeam: boolean, hasRole: boolean) => number> = {
  'GET /auth/me': () => 200,
  'GET /schedules/preview': () => 200,
  'GET /teams': () => 200,
  'POST /teams': () => 403,
  'DELETE /teams/{name}': (_, hasRole) => (hasRole ? 404 : 403), // a new team, not the token's
  'GET /teams/{name}/grants': (own, hasRole) => (!own ? 404 : hasRole ? 200 : 403), // default's
  'PUT /teams/{name}/grants': (_, hasRole) => (hasRole ? 404 : 403), // a new team's
  'GET /users': () => 403,
  'DELETE /users/{id}': () => 403,
  'POST /tokens': () => 403,
  'GET /tokens': () => 403,
  'DELETE /tokens/{id}': () => 403,
};

const rank = (role: Role): number => ROLES.indexOf(role);

/** What a caller gets from an endpoint whose route keeps to teams by `rule`. */
function expectedStatus(e: Endpoint, rule: TeamRule, caller: Caller): number {
  if (caller.kind === 'anonymous' || caller.kind === 'expired personal token') return 401;
  if (caller.kind === 'Orbit admin') return e.success;
  const own = caller.team === OWNER;
  const hasRole = rank(caller.role) >= rank(e.min);
  if (rule.kind === 'own') {
    const answer = OWN_RULES[label(e)];
    if (!answer) throw new Error(`${label(e)} checks teams itself: say what a team token gets in OWN_RULES`);
    return answer(own, hasRole);
  }
  if (!hasRole) return 403;
  switch (rule.kind) {
    case 'organisation':
      return 403;
    case 'owned':
      return own ? e.success : 404;
    case 'new':
    case 'filtered':
      return e.success;
  }
}

/** Every route of the app with its TeamRule (undefined: none), labelled as the API documents it. */
function rulesOf(app: TestApp): Map<string, TeamRule | undefined> {
  const rules = new Map<string, TeamRule | undefined>();
  for (const module of app.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type;
      const prefix = Reflect.getMetadata(PATH_METADATA, controller) as string;
      const prototype = controller.prototype as Record<string, object>;
      for (const name of new MetadataScanner().getAllMethodNames(prototype)) {
        const handler = prototype[name]!;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        if (path === undefined) continue;
        if (Reflect.getMetadata(PUBLIC, handler) ?? Reflect.getMetadata(PUBLIC, controller)) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        const route = `/${[prefix, path]
          .flatMap((part) => part.split('/'))
          .filter(Boolean)
          .map((part) => (part.startsWith(':') ? `{${part.slice(1)}}` : part))
          .join('/')}`;
        const rule = (Reflect.getMetadata(TEAMS, handler) ?? Reflect.getMetadata(TEAMS, controller)) as
          TeamRule | undefined;
        rules.set(`${method} ${route}`, rule);
      }
    }
  }
  return rules;
}

/** Everything of the owning team a foreign answer must not name: ids and names of its jobs, runs, channels and groups. */
async function ownersThings(t: TestApp): Promise<string[]> {
  const { rows } = await t.db.sql(
    `SELECT id::text AS a, name AS b FROM jobs WHERE team = $1
     UNION ALL SELECT e.id::text, NULL FROM executions e JOIN jobs j ON j.id = e.job_id WHERE j.team = $1
     UNION ALL SELECT id::text, name FROM channels WHERE team = $1
     UNION ALL SELECT id::text, name FROM concurrency_groups WHERE team = $1`,
    [OWNER],
  );
  return (rows as Array<{ a: string; b: string | null }>).flatMap((row) => [row.a, row.b ?? row.a]);
}

/** Every row of the tables a refused request could write, as text. */
async function snapshot(t: TestApp): Promise<string> {
  const tables = ['jobs', 'executions', 'channels', 'concurrency_groups', 'deliveries', 'api_tokens', 'teams'];
  const parts = await Promise.all(
    tables.map(async (table) => (await t.db.sql(`SELECT t::text FROM ${table} t ORDER BY 1`)).rows),
  );
  return JSON.stringify(parts);
}

describe('team isolation', () => {
  let t: TestApp;
  let fx: Fixtures;
  let rules: Map<string, TeamRule | undefined>;
  const secrets = new Map<string, string>();

  const authorization = (caller: Caller): string | undefined =>
    caller.kind === 'anonymous' ? undefined : bearer(secrets.get(nameOf(caller))!);

  beforeAll(async () => {
    t = await createTestApp({ asAdmin: false, env: { ORBIT_ALERTS_ALLOW_PRIVATE: 'true' } });
    fx = fixtures(t);
    rules = rulesOf(t);
    const admin = bearer(TEST_ADMIN_TOKEN);
    expect((await send(t, 'post', '/teams', admin, { name: OTHER })).status).toBe(201);
    for (const caller of CALLERS) {
      if (caller.kind !== 'team token') continue;
      const issued = await send(t, 'post', '/tokens', admin, {
        name: `${caller.team}-${caller.role}`,
        role: caller.role,
        team: caller.team,
      });
      expect(issued.status).toBe(201);
      secrets.set(nameOf(caller), issued.body.token as string);
    }
    secrets.set('Orbit admin', TEST_ADMIN_TOKEN);
    // a person's token of the owning team, as an admin, a day past its expiry
    const expired = `orbit_${randomUUID().replaceAll('-', '')}`;
    const user = randomUUID();
    await t.db.sql(
      `INSERT INTO users (id, issuer, subject, name, created_at, last_sign_in_at)
       VALUES ($1::uuid, 'https://issuer.example', $1::text, 'Ada', now(), now())`,
      [user],
    );
    await t.db.sql(
      `INSERT INTO api_tokens (id, name, role, token_hash, created_at, user_id, team, expires_at)
       VALUES ($1, 'ada-laptop', 'admin', $2, now() - interval '31 days', $3, $4, now() - interval '1 day')`,
      [randomUUID(), createHash('sha256').update(expired).digest('hex'), user, OWNER],
    );
    secrets.set('expired personal token', expired);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('every route of the app says how it keeps to teams, and the route table has them all', () => {
    const missing = [...rules].filter(([, rule]) => rule === undefined).map(([route]) => route);
    expect(missing).toEqual([]);
    expect([...rules.keys()].sort()).toEqual(
      ENDPOINTS.map(label)
        .filter((route) => !PUBLIC_ROUTES.includes(route))
        .sort(),
    );
  });

  it.each(ENDPOINTS.map((e) => [label(e), e] as const))('%s: every caller gets what its teams allow', async (_, e) => {
    const rule = rules.get(label(e))!;
    const expected: Record<string, number> = {};
    const actual: Record<string, number> = {};
    const leaks: string[] = [];
    for (const caller of CALLERS) {
      const target = await e.target(fx);
      const before = await snapshot(t);
      const res = await send(t, e.method, target.path, authorization(caller), target.body);
      const status = expectedStatus(e, rule, caller);
      expected[nameOf(caller)] = status;
      actual[nameOf(caller)] = res.status;
      if (res.status >= 400)
        expect({ caller: nameOf(caller), rows: await snapshot(t) }).toEqual({
          caller: nameOf(caller),
          rows: before,
        });
      if (caller.kind === 'team token' && caller.team === OTHER && res.status < 300) {
        const answer = JSON.stringify(res.body) + (res.text ?? '');
        leaks.push(...(await ownersThings(t)).filter((thing) => answer.includes(thing)));
      }
    }
    expect({ rule: rule.kind, statuses: actual }).toEqual({ rule: rule.kind, statuses: expected });
    expect(leaks).toEqual([]);
  });

  it('a list asked for another team answers nothing of it', async () => {
    const job = await fx.job();
    const other = bearer(secrets.get(`viewer of ${OTHER}`)!);
    const res = await request(t.app.getHttpServer()).get(`/jobs?team=${OWNER}`).set('Authorization', other);
    expect({ status: res.status, items: res.body.items }).toEqual({ status: 200, items: [] });
    const mine = await request(t.app.getHttpServer())
      .get(`/jobs?team=${OWNER}`)
      .set('Authorization', bearer(secrets.get(`viewer of ${OWNER}`)!));
    expect(mine.body.items.map((item: { id: string }) => item.id)).toContain(job.id);
  });
});
