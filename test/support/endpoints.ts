import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Schema } from './api-types.js';
import { jobBody } from './jobs.js';
import { TEST_ADMIN_TOKEN, TestApp } from './test-app.js';

/*
 * The route table of the API: every endpoint behind a token, the least role it needs, its success
 * code, and how to reach it with real ids (made by ORBIT_ADMIN_TOKEN, in the team default). The
 * role matrix (auth.e2e-spec) and the team isolation matrix (isolation.e2e-spec) run over it.
 */

/** A body sent to any endpoint, right or wrong on purpose (unknown fields, wrong types): so untyped. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type Body = Record<string, any>;
export type Job = Schema<'JobResponse'>;
export type Execution = Schema<'ExecutionResponse'>;
export type AuditEvent = Schema<'AuditEventResponse'>;
export type Role = 'viewer' | 'operator' | 'admin';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export const ROLES: Role[] = ['viewer', 'operator', 'admin'];
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** What a request is sent to: a path with real ids and, for the endpoints that take one, a valid body. */
export interface Target {
  path: string;
  body?: Body;
}

/** The admin-side helpers an endpoint's setup uses to make real ids. */
export interface Fixtures {
  job(): Promise<Job>;
  execution(state: 'QUEUED' | 'RUNNING' | 'CANCELLED'): Promise<Execution>;
  token(role: Role): Promise<Schema<'CreatedTokenResponse'>>;
  channel(): Promise<Schema<'ChannelResponse'>>;
  group(): Promise<Schema<'ConcurrencyGroupResponse'>>;
  /** A worker's id, registered as a live worker would register it. */
  worker(): Promise<string>;
  /** A new team's name. */
  team(): Promise<string>;
  /** The id of a person who signed in once (stored as a sign-in stores them). */
  user(): Promise<string>;
}

export interface Endpoint {
  method: Method;
  /** As documented (OpenAPI path syntax). */
  route: string;
  min: Role;
  success: number;
  target(fx: Fixtures): Promise<Target>;
}

/** The contract: every endpoint behind a token, the least role it needs, and its success code. */
export const ENDPOINTS: Endpoint[] = [
  {
    method: 'post',
    route: '/jobs',
    min: 'admin',
    success: 201,
    target: () => Promise.resolve({ path: '/jobs', body: validJob() }),
  },
  { method: 'get', route: '/jobs', min: 'viewer', success: 200, target: () => Promise.resolve({ path: '/jobs' }) },
  {
    method: 'get',
    route: '/schedules/preview',
    min: 'viewer',
    success: 200,
    target: () => Promise.resolve({ path: '/schedules/preview?cron=0%203%20*%20*%20*' }),
  },
  {
    method: 'get',
    route: '/auth/me',
    min: 'viewer',
    success: 200,
    target: () => Promise.resolve({ path: '/auth/me' }),
  },
  {
    method: 'get',
    route: '/jobs/{id}',
    min: 'viewer',
    success: 200,
    target: async (fx) => ({ path: `/jobs/${(await fx.job()).id}` }),
  },
  {
    method: 'patch',
    route: '/jobs/{id}',
    min: 'admin',
    success: 200,
    target: async (fx) => ({ path: `/jobs/${(await fx.job()).id}`, body: { command: 'echo patched' } }),
  },
  {
    method: 'delete',
    route: '/jobs/{id}',
    min: 'admin',
    success: 204,
    target: async (fx) => ({ path: `/jobs/${(await fx.job()).id}` }),
  },
  {
    method: 'get',
    route: '/jobs/{id}/next-runs',
    min: 'viewer',
    success: 200,
    target: async (fx) => ({ path: `/jobs/${(await fx.job()).id}/next-runs` }),
  },
  {
    method: 'get',
    route: '/jobs/{id}/timeline',
    min: 'viewer',
    success: 200,
    target: async (fx) => ({
      path: `/jobs/${(await fx.job()).id}/timeline?from=2026-11-30T09:00:00Z&to=2026-11-30T10:00:00Z`,
    }),
  },
  {
    method: 'post',
    route: '/jobs/{id}/pause',
    min: 'operator',
    success: 200,
    target: async (fx) => ({ path: `/jobs/${(await fx.job()).id}/pause`, body: { note: 'maintenance' } }),
  },
  {
    method: 'post',
    route: '/jobs/{id}/resume',
    min: 'operator',
    success: 200,
    target: async (fx) => ({ path: `/jobs/${(await fx.job()).id}/resume` }),
  },
  {
    method: 'post',
    route: '/jobs/{id}/executions',
    min: 'operator',
    success: 201,
    target: async (fx) => ({ path: `/jobs/${(await fx.job()).id}/executions` }),
  },
  {
    method: 'post',
    route: '/jobs/{id}/backfill',
    min: 'operator',
    success: 201,
    target: async (fx) => ({
      path: `/jobs/${(await fx.job()).id}/backfill`,
      body: {
        from: new Date(Date.now() - 2 * 86_400_000).toISOString(),
        to: new Date(Date.now() - 86_400_000).toISOString(),
      },
    }),
  },
  {
    method: 'get',
    route: '/executions',
    min: 'viewer',
    success: 200,
    target: () => Promise.resolve({ path: '/executions' }),
  },
  {
    method: 'get',
    route: '/executions/{id}',
    min: 'viewer',
    success: 200,
    target: async (fx) => ({ path: `/executions/${(await fx.execution('QUEUED')).id}` }),
  },
  {
    method: 'get',
    route: '/executions/{id}/output',
    min: 'viewer',
    success: 200,
    target: async (fx) => ({ path: `/executions/${(await fx.execution('QUEUED')).id}/output` }),
  },
  {
    method: 'get',
    route: '/executions/{id}/cancellation',
    min: 'viewer',
    success: 200,
    target: async (fx) => ({ path: `/executions/${(await fx.execution('CANCELLED')).id}/cancellation` }),
  },
  {
    method: 'post',
    route: '/executions/{id}/start',
    min: 'operator',
    success: 200,
    target: async (fx) => ({ path: `/executions/${(await fx.execution('QUEUED')).id}/start` }),
  },
  {
    method: 'post',
    route: '/executions/{id}/succeed',
    min: 'operator',
    success: 200,
    target: async (fx) => ({
      path: `/executions/${(await fx.execution('RUNNING')).id}/succeed`,
      body: { exitCode: 0 },
    }),
  },
  {
    method: 'post',
    route: '/executions/{id}/fail',
    min: 'operator',
    success: 200,
    target: async (fx) => ({
      path: `/executions/${(await fx.execution('RUNNING')).id}/fail`,
      body: { exitCode: 1, errorMessage: 'boom' },
    }),
  },
  {
    method: 'post',
    route: '/executions/{id}/cancel',
    min: 'operator',
    success: 200,
    target: async (fx) => ({ path: `/executions/${(await fx.execution('QUEUED')).id}/cancel` }),
  },
  {
    method: 'post',
    route: '/tokens',
    min: 'admin',
    success: 201,
    target: () => Promise.resolve({ path: '/tokens', body: { name: `t-${randomUUID()}`, role: 'viewer' } }),
  },
  { method: 'get', route: '/tokens', min: 'admin', success: 200, target: () => Promise.resolve({ path: '/tokens' }) },
  {
    method: 'delete',
    route: '/tokens/{id}',
    min: 'admin',
    success: 204,
    target: async (fx) => ({ path: `/tokens/${(await fx.token('viewer')).id}` }),
  },
  { method: 'get', route: '/audit', min: 'admin', success: 200, target: () => Promise.resolve({ path: '/audit' }) },
  { method: 'get', route: '/teams', min: 'viewer', success: 200, target: () => Promise.resolve({ path: '/teams' }) },
  {
    method: 'post',
    route: '/teams',
    min: 'admin',
    success: 201,
    target: () => Promise.resolve({ path: '/teams', body: { name: `t-${randomUUID().slice(0, 8)}` } }),
  },
  {
    method: 'delete',
    route: '/teams/{name}',
    min: 'admin',
    success: 204,
    target: async (fx) => ({ path: `/teams/${await fx.team()}` }),
  },
  {
    method: 'get',
    route: '/teams/{name}/grants',
    min: 'admin',
    success: 200,
    target: () => Promise.resolve({ path: '/teams/default/grants' }),
  },
  {
    method: 'put',
    route: '/teams/{name}/grants',
    min: 'admin',
    success: 200,
    target: async (fx) => ({
      path: `/teams/${await fx.team()}/grants`,
      body: { grants: [{ kind: 'group', subject: 'payments', role: 'operator' }] },
    }),
  },
  { method: 'get', route: '/users', min: 'admin', success: 200, target: () => Promise.resolve({ path: '/users' }) },
  {
    method: 'delete',
    route: '/users/{id}',
    min: 'admin',
    success: 204,
    target: async (fx) => ({ path: `/users/${await fx.user()}` }),
  },
  {
    method: 'post',
    route: '/channels',
    min: 'admin',
    success: 201,
    target: () => Promise.resolve({ path: '/channels', body: validChannel() }),
  },
  {
    method: 'get',
    route: '/channels',
    min: 'admin',
    success: 200,
    target: () => Promise.resolve({ path: '/channels' }),
  },
  {
    method: 'get',
    route: '/channels/{id}',
    min: 'admin',
    success: 200,
    target: async (fx) => ({ path: `/channels/${(await fx.channel()).id}` }),
  },
  {
    method: 'patch',
    route: '/channels/{id}',
    min: 'admin',
    success: 200,
    target: async (fx) => ({ path: `/channels/${(await fx.channel()).id}`, body: { url: 'http://127.0.0.1:9/other' } }),
  },
  {
    method: 'delete',
    route: '/channels/{id}',
    min: 'admin',
    success: 204,
    target: async (fx) => ({ path: `/channels/${(await fx.channel()).id}` }),
  },
  {
    method: 'post',
    route: '/channels/{id}/test',
    min: 'admin',
    success: 200,
    target: async (fx) => ({ path: `/channels/${(await fx.channel()).id}/test` }),
  },
  {
    method: 'get',
    route: '/deliveries',
    min: 'viewer',
    success: 200,
    target: () => Promise.resolve({ path: '/deliveries' }),
  },
  {
    method: 'get',
    route: '/jobs/{id}/stats',
    min: 'viewer',
    success: 200,
    target: async (fx) => ({ path: `/jobs/${(await fx.job()).id}/stats` }),
  },
  {
    method: 'get',
    route: '/jobs/recent-runs',
    min: 'viewer',
    success: 200,
    target: async (fx) => ({ path: `/jobs/recent-runs?ids=${(await fx.job()).id}` }),
  },
  {
    method: 'get',
    route: '/overview',
    min: 'viewer',
    success: 200,
    target: () => Promise.resolve({ path: '/overview' }),
  },
  {
    method: 'get',
    route: '/overview/activity',
    min: 'viewer',
    success: 200,
    target: () => Promise.resolve({ path: '/overview/activity?window=day' }),
  },
  {
    method: 'get',
    route: '/executions/{id}/output/stream',
    min: 'viewer',
    success: 200,
    // a finished execution: its stream ends at once
    target: async (fx) => ({ path: `/executions/${(await fx.execution('CANCELLED')).id}/output/stream` }),
  },
  { method: 'get', route: '/events', min: 'viewer', success: 200, target: () => Promise.resolve({ path: '/events' }) },
  {
    method: 'get',
    route: '/events/stream',
    min: 'viewer',
    success: 200,
    target: () => Promise.resolve({ path: '/events/stream' }),
  },
  {
    method: 'get',
    route: '/metrics',
    min: 'viewer',
    success: 200,
    target: () => Promise.resolve({ path: '/metrics' }),
  },
  {
    method: 'get',
    route: '/workers',
    min: 'viewer',
    success: 200,
    target: () => Promise.resolve({ path: '/workers' }),
  },
  {
    method: 'get',
    route: '/workers/{id}/runs',
    min: 'viewer',
    success: 200,
    target: async (fx) => ({
      path: `/workers/${await fx.worker()}/runs?from=2026-01-05T10:00:00Z&to=2026-01-05T11:00:00Z`,
    }),
  },
  {
    method: 'post',
    route: '/apply',
    min: 'admin',
    success: 200,
    target: () =>
      Promise.resolve({
        path: '/apply',
        body: { file: { jobs: { applied: { command: 'echo hi', cronExpression: '0 3 * * *' } } }, dryRun: true },
      }),
  },
  {
    method: 'get',
    route: '/orbit-file',
    min: 'admin',
    success: 200,
    target: () => Promise.resolve({ path: '/orbit-file' }),
  },
  {
    method: 'post',
    route: '/workers/{id}/drain',
    min: 'operator',
    success: 200,
    target: async (fx) => ({ path: `/workers/${await fx.worker()}/drain` }),
  },
  {
    method: 'post',
    route: '/workers/{id}/resume',
    min: 'operator',
    success: 200,
    target: async (fx) => ({ path: `/workers/${await fx.worker()}/resume` }),
  },
  {
    method: 'post',
    route: '/concurrency-groups',
    min: 'admin',
    success: 201,
    target: () => Promise.resolve({ path: '/concurrency-groups', body: { name: `g-${randomUUID()}`, limit: 2 } }),
  },
  {
    method: 'get',
    route: '/concurrency-groups',
    min: 'admin',
    success: 200,
    target: () => Promise.resolve({ path: '/concurrency-groups' }),
  },
  {
    method: 'get',
    route: '/concurrency-groups/{id}',
    min: 'admin',
    success: 200,
    target: async (fx) => ({ path: `/concurrency-groups/${(await fx.group()).id}` }),
  },
  {
    method: 'patch',
    route: '/concurrency-groups/{id}',
    min: 'admin',
    success: 200,
    target: async (fx) => ({ path: `/concurrency-groups/${(await fx.group()).id}`, body: { limit: 4 } }),
  },
  {
    method: 'delete',
    route: '/concurrency-groups/{id}',
    min: 'admin',
    success: 204,
    target: async (fx) => ({ path: `/concurrency-groups/${(await fx.group()).id}` }),
  },
];

/** Reachable without any token: health checks, for load balancers and orchestrators. */
export const PUBLIC_ROUTES = [
  'GET /health/live',
  'GET /health/ready',
  'GET /auth/providers',
  'GET /auth/login',
  'POST /auth/logout',
  'POST /auth/cli-token',
  'POST /auth/device',
  'POST /auth/device/token',
];

export const label = (e: Endpoint): string => `${e.method.toUpperCase()} ${e.route}`;

/** A webhook to the discard port of loopback (the app allows private targets): a test attempt fails at once. */
export function validChannel(): Schema<'CreateChannelDto'> {
  return { name: `c-${randomUUID()}`, type: 'webhook', url: 'http://127.0.0.1:9/hook' };
}

export function validJob(overrides: Body = {}): Body {
  return { ...jobBody({ command: 'echo hi', cronExpression: '0 3 * * *' }), ...overrides };
}

export function send(t: TestApp, method: Method, path: string, authorization?: string, body?: Body): request.Test {
  let req = request(t.app.getHttpServer())[method](path);
  if (authorization !== undefined) req = req.set('Authorization', authorization);
  if (body !== undefined) req = req.send(body);
  if (path.startsWith('/events/stream')) req = req.buffer(true).parse(untilFirstEvent);
  return req;
}

/** The events stream stays open: its answer is its first chunk; an error is JSON as everywhere. */
function untilFirstEvent(response: request.Response, done: (error: Error | null, body: unknown) => void): void {
  const res = response as unknown as IncomingMessage; // superagent hands node's response to a parser
  res.setEncoding('utf8');
  if (String(res.headers['content-type']).startsWith('text/event-stream')) {
    res.once('data', (chunk: string) => {
      done(null, { stream: chunk });
      res.destroy();
    });
    return;
  }
  let text = '';
  res.on('data', (chunk: string) => (text += chunk));
  res.on('end', () => done(null, JSON.parse(text)));
}

export const bearer = (secret: string): string => `Bearer ${secret}`;

/** The admin helpers of one app, through the API with ORBIT_ADMIN_TOKEN. */
export function fixtures(t: TestApp): Fixtures {
  const admin = (method: Method, path: string, body?: Body) => send(t, method, path, bearer(TEST_ADMIN_TOKEN), body);
  const fx: Fixtures = {
    async job() {
      const res = await admin('post', '/jobs', validJob());
      expect(res.status).toBe(201);
      return res.body as Job;
    },
    async execution(state) {
      const job = await fx.job();
      const queued = await admin('post', `/jobs/${job.id}/executions`);
      expect(queued.status).toBe(201);
      if (state === 'QUEUED') return queued.body as Execution;
      if (state === 'CANCELLED') {
        const cancelled = await admin('post', `/executions/${queued.body.id}/cancel`);
        expect(cancelled.status).toBe(200);
        return cancelled.body as Execution;
      }
      const started = await admin('post', `/executions/${queued.body.id}/start`);
      expect(started.status).toBe(200);
      return started.body as Execution;
    },
    async token(role) {
      const res = await admin('post', '/tokens', { name: `${role}-${randomUUID().slice(0, 8)}`, role });
      expect(res.status).toBe(201);
      return res.body as Schema<'CreatedTokenResponse'>;
    },
    async channel() {
      const res = await admin('post', '/channels', validChannel());
      expect(res.status).toBe(201);
      return res.body as Schema<'ChannelResponse'>;
    },
    async group() {
      const res = await admin('post', '/concurrency-groups', { name: `g-${randomUUID()}`, limit: 2 });
      expect(res.status).toBe(201);
      return res.body as Schema<'ConcurrencyGroupResponse'>;
    },
    async worker() {
      const id = `host-x:1:${randomUUID().slice(0, 6)}`;
      await t.db.sql(
        `INSERT INTO workers (id, host, pid, version, concurrency, started_at, last_heartbeat_at)
         VALUES ($1, 'host-x', 1, '0', 1, now(), now())`,
        [id],
      );
      return id;
    },
    async team() {
      const name = `t-${randomUUID().slice(0, 8)}`;
      expect((await admin('post', '/teams', { name })).status).toBe(201);
      return name;
    },
    async user() {
      const id = randomUUID();
      await t.db.sql(
        `INSERT INTO users (id, issuer, subject, name, created_at, last_sign_in_at)
         VALUES ($1::uuid, 'https://issuer.example', $1::text, 'Someone', now(), now())`,
        [id],
      );
      return id;
    },
  };
  return fx;
}
