import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AlertConsumer, ALERTS_CONSUMER } from '../../src/alerts/application/alert-consumer.js';
import { EventConsumers } from '../../src/events/application/event-consumers.js';
import { expectErrorBody } from '../support/error-body.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const TEAMS = ['alpha', 'beta'] as const;
type Team = (typeof TEAMS)[number];

/** What a team owns, and its tokens (each bound to that team alone). */
interface Owned {
  admin: string;
  viewer: string;
  channel: { id: string; name: string };
  group: { id: string; name: string };
  job: { id: string; name: string };
}

const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;
const other = (team: Team): Team => (team === 'alpha' ? 'beta' : 'alpha');

/**
 * Two teams, each with a channel, a concurrency group and a job naming both, a run that failed
 * (so events and a delivery to the job's channel) and a test delivery. A team's tokens never
 * reach, nor read, what the other team owns; an Orbit admin reaches both.
 */
describe('channels, groups, deliveries, events and audit keep to the caller’s teams', () => {
  let t: TestApp;
  let base: string;
  const owned = {} as Record<Team, Owned>;
  const http = () => request(t.app.getHttpServer());
  const as = (token: string) => ({ Authorization: token.startsWith('Bearer ') ? token : `Bearer ${token}` });

  /** Every id and name the team owns: none may show in the other team's answers. */
  const marks = (team: Team) => {
    const { channel, group, job } = owned[team];
    return [channel.id, channel.name, group.id, group.name, job.id, job.name];
  };
  const expectOnly = (answer: unknown, team: Team) => {
    const text = JSON.stringify(answer);
    for (const mark of marks(other(team))) expect(text).not.toContain(mark);
  };

  beforeAll(async () => {
    t = await createTestApp({ env: { ORBIT_ALERTS_ALLOW_PRIVATE: 'true', ORBIT_POLL_INTERVAL_MS: '60000' } });
    await t.app.listen(0, '127.0.0.1');
    base = await t.app.getUrl();
    for (const team of TEAMS) {
      await http().post('/teams').set(as(ADMIN)).send({ name: team }).expect(201);
      const token = async (role: string) =>
        (
          await http()
            .post('/tokens')
            .set(as(ADMIN))
            .send({ name: `${team}-${role}`, role, team })
            .expect(201)
        ).body.token as string;
      const admin = await token('admin');
      const viewer = await token('viewer');
      // made by the team's own token, naming no team: they land in its team
      const channel = await http()
        .post('/channels')
        .set(as(admin))
        .send({ name: `${team}-hook`, type: 'webhook', url: 'http://127.0.0.1:9/hook' })
        .expect(201);
      expect(channel.body.team).toBe(team);
      const group = await http()
        .post('/concurrency-groups')
        .set(as(admin))
        .send({ name: `${team}-db`, limit: 2 })
        .expect(201);
      expect(group.body.team).toBe(team);
      const job = await http()
        .post('/jobs')
        .set(as(admin))
        .send({
          name: `${team}-nightly`,
          command: 'true',
          cronExpression: '0 3 * * *',
          alerts: [{ channel: `${team}-hook` }],
          concurrencyGroup: `${team}-db`,
        })
        .expect(201);
      expect(job.body.team).toBe(team);
      owned[team] = {
        admin,
        viewer,
        channel: { id: channel.body.id, name: channel.body.name },
        group: { id: group.body.id, name: group.body.name },
        job: { id: job.body.id, name: job.body.name },
      };
      // a run that fails: events, and a delivery to the job's channel once the consumer passes
      const run = await http().post(`/jobs/${job.body.id}/executions`).set(as(ADMIN)).expect(201);
      await http().post(`/executions/${run.body.id}/start`).set(as(ADMIN)).send({}).expect(200);
      await http()
        .post(`/executions/${run.body.id}/fail`)
        .set(as(ADMIN))
        .send({ exitCode: 1, errorMessage: 'broken' })
        .expect(200);
      await http().post(`/channels/${channel.body.id}/test`).set(as(admin)).expect(200);
    }
    const consumer = t.app.get(AlertConsumer);
    await t.app
      .get(EventConsumers)
      .consume(ALERTS_CONSUMER, 1000, async (events) => void (await consumer.handle(events)));
    const { rows } = await t.db.sql(`SELECT count(*)::int AS n FROM deliveries WHERE job_id IS NOT NULL`);
    expect(rows[0].n).toBe(2); // one per team's failed run, to its own channel
  });
  afterAll(() => t?.close());

  describe.each(TEAMS)("%s's tokens", (team) => {
    const foreign = () => owned[other(team)];

    /** Each id route, as the team's admin: another team's thing answers as an unknown one. */
    const idRoutes: Array<[string, 'get' | 'patch' | 'delete' | 'post', (id: string) => string, object | null]> = [
      ['GET /channels/:id', 'get', (id) => `/channels/${id}`, null],
      ['PATCH /channels/:id', 'patch', (id) => `/channels/${id}`, { allJobs: { on: ['failed'] } }],
      ['DELETE /channels/:id', 'delete', (id) => `/channels/${id}`, null],
      ['POST /channels/:id/test', 'post', (id) => `/channels/${id}/test`, null],
      ['GET /concurrency-groups/:id', 'get', (id) => `/concurrency-groups/${id}`, null],
      ['PATCH /concurrency-groups/:id', 'patch', (id) => `/concurrency-groups/${id}`, { limit: 9 }],
      ['DELETE /concurrency-groups/:id', 'delete', (id) => `/concurrency-groups/${id}`, null],
    ];

    it.each(idRoutes)("%s: the other team's answers 404 as an unknown id does", async (_, method, path, body) => {
      const thing = path('x').startsWith('/channels') ? foreign().channel : foreign().group;
      const unknown = randomUUID();
      const send = (id: string) => {
        const call = http()[method](path(id)).set(as(owned[team].admin));
        return body ? call.send(body) : call;
      };
      const [theirs, missing] = [await send(thing.id), await send(unknown)];
      expect(theirs.status).toBe(404);
      expect(missing.status).toBe(404);
      expectErrorBody(theirs.body, 404, 'Not Found');
      expect({ ...theirs.body, message: theirs.body.message.replace(thing.id, '<id>') }).toEqual({
        ...missing.body,
        message: missing.body.message.replace(unknown, '<id>'),
      });
      expect(theirs.body.message).toMatch(/^(Channel|Concurrency group) <?[0-9a-f-]{36}>? not found$/);
    });

    it('the other team’s things are left as they were by those refusals', async () => {
      const channel = await http().get(`/channels/${foreign().channel.id}`).set(as(ADMIN)).expect(200);
      expect(channel.body).toMatchObject({ name: foreign().channel.name, team: other(team), allJobs: null });
      const group = await http().get(`/concurrency-groups/${foreign().group.id}`).set(as(ADMIN)).expect(200);
      expect(group.body).toMatchObject({ name: foreign().group.name, team: other(team), limit: 2 });
    });

    it("lists its own channels and groups only, with their jobs; a filter on the other team's is empty", async () => {
      const channels = await http().get('/channels').set(as(owned[team].admin)).expect(200);
      expect(channels.body.items).toEqual([
        expect.objectContaining({
          id: owned[team].channel.id,
          team,
          jobs: [expect.objectContaining({ id: owned[team].job.id })],
          jobCount: 1,
        }),
      ]);
      expectOnly(channels.body, team);
      const groups = await http().get('/concurrency-groups').set(as(owned[team].admin)).expect(200);
      expect(groups.body.items).toEqual([expect.objectContaining({ id: owned[team].group.id, team })]);
      expectOnly(groups.body, team);
      for (const path of ['/channels', '/concurrency-groups']) {
        const filtered = await http()
          .get(path)
          .query({ team: other(team) })
          .set(as(owned[team].admin))
          .expect(200);
        expect(filtered.body.items).toEqual([]);
      }
    });

    it.each(['admin', 'viewer'] as const)(
      'as %s: GET /deliveries holds its channel’s deliveries only',
      async (role) => {
        const { body } = await http().get('/deliveries').set(as(owned[team][role])).expect(200);
        const items = body.items as Array<{ channelId: string; jobId: string | null; event: string }>;
        expect(items.map((d) => [d.channelId, d.jobId]).sort()).toEqual(
          [
            [owned[team].channel.id, owned[team].job.id],
            [owned[team].channel.id, null],
          ].sort(),
        );
        expectOnly(body, team);
      },
    );

    it.each(['admin', 'viewer'] as const)("as %s: GET /events holds its job's events only", async (role) => {
      const { body } = await http().get('/events').query({ limit: 1000 }).set(as(owned[team][role])).expect(200);
      const jobs = new Set((body.items as Array<{ jobId: string }>).map((e) => e.jobId));
      expect([...jobs]).toEqual([owned[team].job.id]);
      expect(body.items.map((e: { type: string }) => e.type)).toEqual(
        expect.arrayContaining(['job.created', 'execution.queued', 'execution.running', 'execution.failed']),
      );
      expectOnly(body, team);
      // a page of one event at a time still skips the other team's, in order
      const seqs: number[] = [];
      for (let after = 0; ;) {
        const page = await http().get('/events').query({ after, limit: 1 }).set(as(owned[team][role])).expect(200);
        if (page.body.items.length === 0) break;
        expect(page.body.items[0].jobId).toBe(owned[team].job.id);
        seqs.push(page.body.items[0].seq);
        after = page.body.nextAfter;
      }
      expect(seqs).toEqual(body.items.map((e: { seq: number }) => e.seq));
    });

    it('GET /events/stream sends its job’s events only: the backlog, and what is written while it is open', async () => {
      const stream = await follow(base, owned[team].viewer, '?after=0');
      try {
        // written while the stream is open: the other team's change first, then this team's
        await http().patch(`/jobs/${foreign().job.id}`).set(as(ADMIN)).send({ description: 'theirs' }).expect(200);
        await http().patch(`/jobs/${owned[team].job.id}`).set(as(ADMIN)).send({ description: 'ours' }).expect(200);
        // every event of its job, as stored, up to the change just made, and no other
        const { rows } = await t.db.sql(`SELECT seq FROM events WHERE job_id = $1 ORDER BY seq`, [owned[team].job.id]);
        const expected = rows.map((row: { seq: string }) => Number(row.seq));
        await waitFor(
          () => (stream.events.length >= expected.length ? true : undefined),
          `${expected.length} events of ${team}'s job on the stream`,
        );
        expect(stream.events.map((e) => e.seq)).toEqual(expected);
      } finally {
        await stream.close();
      }
      expect(new Set(stream.events.map((e) => e.jobId))).toEqual(new Set([owned[team].job.id]));
      expect(stream.events.map((e) => e.type)).toEqual(
        expect.arrayContaining(['job.created', 'execution.queued', 'execution.failed', 'job.updated']),
      );
      expectOnly(stream.text, team);
    });

    it('GET /audit, as its admin: what was done in its team only; as its viewer: 403', async () => {
      const { body } = await http().get('/audit').query({ limit: 100 }).set(as(owned[team].admin)).expect(200);
      const items = body.items as Array<{ action: string; targetId: string | null; team: string | null }>;
      expect(new Set(items.map((e) => e.team))).toEqual(new Set([team]));
      expect(items.map((e) => [e.action, e.targetId])).toEqual(
        expect.arrayContaining([
          ['channel.created', owned[team].channel.id],
          ['concurrency-group.created', owned[team].group.id],
          ['job.created', owned[team].job.id],
          ['channel.tested', expect.any(String)],
        ]),
      );
      expectOnly(body, team);
      const filtered = await http()
        .get('/audit')
        .query({ team: other(team) })
        .set(as(owned[team].admin))
        .expect(200);
      expect(filtered.body.items).toEqual([]);
      await http().get('/audit').set(as(owned[team].viewer)).expect(403);
    });

    it("a job cannot name the other team's channel nor its group (400)", async () => {
      const job = (extra: object) => ({ name: `${team}-${randomUUID().slice(0, 8)}`, command: 'true', ...extra });
      const channel = await http()
        .post('/jobs')
        .set(as(owned[team].admin))
        .send(job({ cronExpression: '0 3 * * *', alerts: [{ channel: foreign().channel.name }] }))
        .expect(400);
      expect(channel.body).toMatchObject({ field: 'alerts[0].channel' });
      expect(channel.body.message).toContain(`the team ${team} has no channel named '${foreign().channel.name}'`);
      const group = await http()
        .post('/jobs')
        .set(as(owned[team].admin))
        .send(job({ cronExpression: '0 3 * * *', concurrencyGroup: foreign().group.name }))
        .expect(400);
      expect(group.body).toMatchObject({ field: 'concurrencyGroup' });
      // not even an Orbit admin, making the job in this team
      await http()
        .post('/jobs')
        .set(as(ADMIN))
        .send(job({ team, cronExpression: '0 3 * * *', alerts: [{ channel: foreign().channel.name }] }))
        .expect(400);
    });

    it('cannot move its channel or group to the other team, which is not theirs (404)', async () => {
      for (const path of [`/channels/${owned[team].channel.id}`, `/concurrency-groups/${owned[team].group.id}`]) {
        const { body } = await http()
          .patch(path)
          .set(as(owned[team].admin))
          .send({ team: other(team) })
          .expect(404);
        expect(body).toMatchObject({ message: `Team ${other(team)} not found`, field: 'team' });
      }
    });
  });

  it('an Orbit admin sees both teams in every list', async () => {
    const text = async (path: string, query: object = {}) =>
      JSON.stringify((await http().get(path).query(query).set(as(ADMIN)).expect(200)).body);
    const lists = {
      channels: await text('/channels'),
      groups: await text('/concurrency-groups'),
      deliveries: await text('/deliveries'),
      events: await text('/events', { limit: 1000 }),
      audit: await text('/audit', { limit: 100 }),
    };
    for (const team of TEAMS) {
      expect(lists.channels).toContain(owned[team].channel.id);
      expect(lists.groups).toContain(owned[team].group.id);
      expect(lists.deliveries).toContain(owned[team].job.id);
      expect(lists.events).toContain(owned[team].job.id);
      expect(lists.audit).toContain(owned[team].channel.id);
    }
    // and what spans the organisation: the teams' and tokens' making
    expect(lists.audit).toContain('"action":"team.created"');
    const stream = await follow(base, TEST_ADMIN_TOKEN, '?after=0');
    try {
      await waitFor(
        () => (TEAMS.every((team) => stream.text.includes(owned[team].job.id)) ? true : undefined),
        "both teams' events on an Orbit admin's stream",
      );
    } finally {
      await stream.close();
    }
  });

  it('a channel or a group that a job names is not moved (409, naming the job); an unused one moves', async () => {
    const { alpha } = owned;
    const channel = await http()
      .patch(`/channels/${alpha.channel.id}`)
      .set(as(ADMIN))
      .send({ team: 'beta' })
      .expect(409);
    expect(channel.body.message).toBe(
      `Channel '${alpha.channel.name}' cannot be moved to the team beta: the alerts of '${alpha.job.name}' name it`,
    );
    const group = await http()
      .patch(`/concurrency-groups/${alpha.group.id}`)
      .set(as(ADMIN))
      .send({ team: 'beta' })
      .expect(409);
    expect(group.body.message).toContain(alpha.job.name);
    expect((await http().get(`/channels/${alpha.channel.id}`).set(as(alpha.admin)).expect(200)).body.team).toBe(
      'alpha',
    );

    const spare = await http()
      .post('/channels')
      .set(as(alpha.admin))
      .send({ name: 'alpha-spare', type: 'webhook', url: 'http://127.0.0.1:9/spare' })
      .expect(201);
    const moved = await http().patch(`/channels/${spare.body.id}`).set(as(ADMIN)).send({ team: 'beta' }).expect(200);
    expect(moved.body.team).toBe('beta');
    await http().get(`/channels/${spare.body.id}`).set(as(alpha.admin)).expect(404);
    await http().get(`/channels/${spare.body.id}`).set(as(owned.beta.admin)).expect(200);
    // the move is in the trail of the team it left
    const trail = await http()
      .get('/audit')
      .query({ action: 'channel.updated', targetId: spare.body.id })
      .set(as(alpha.admin))
      .expect(200);
    expect(trail.body.items).toEqual([expect.objectContaining({ team: 'alpha' })]);
  });
});

interface StreamedEvent {
  seq: number;
  type: string;
  jobId: string;
}

/** A follower of GET /events/stream over real HTTP: the events it got, and all it read. */
async function follow(base: string, token: string, query: string) {
  const abort = new AbortController();
  const res = await fetch(`${base}/events/stream${query}`, {
    headers: { Authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  expect(res.status).toBe(200);
  const follower = { events: [] as StreamedEvent[], text: '', close: async () => {} };
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const done = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        follower.text += value;
        follower.events = follower.text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => JSON.parse(line.slice(6)) as StreamedEvent);
      }
    } catch {
      // closed
    }
  })();
  follower.close = async () => {
    abort.abort();
    await done;
  };
  return follower;
}
