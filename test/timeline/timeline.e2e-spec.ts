import request from 'supertest';
import { JobRepository } from '../../src/jobs/application/job.repository.js';
import { SchedulerService } from '../../src/runtime/application/scheduler.service.js';
import type { Schema } from '../support/api-types.js';
import { FakeClock } from '../support/fake-clock.js';
import { createJob, type JobFields } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { createTestDatabase, TestDatabase } from '../support/test-database.js';

type Job = Schema<'JobResponse'>;
type AuditEvent = Schema<'AuditEventResponse'>;
type Slot = Schema<'TimelineSlotResponse'>;

const T0 = new Date('2026-11-30T10:00:30.000Z');
const at = (hhmmss: string) => new Date(`2026-11-30T${hhmmss}.000Z`);

/** An API node and a scheduler node (driven pass by pass) on one database, reading one fake clock. */
describe('pausing with a note, and the timeline of a job', () => {
  let db: TestDatabase;
  let clock: FakeClock;
  let api: TestApp;
  let runtime: TestApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    clock = new FakeClock(T0);
    api = await createTestApp({ db, clock });
    runtime = await createTestApp({ db, clock, role: 'all', init: false });
  });
  afterAll(async () => {
    await runtime?.close();
    await api?.close();
    await db?.drop();
  });

  const http = () => request(api.app.getHttpServer());
  /** What the scheduler's loop does when it wakes at `instant`: resume the jobs due to, then pass. */
  const passAt = async (instant: Date) => {
    clock.set(instant);
    const scheduler = runtime.app.get(SchedulerService);
    await scheduler.resumePlanned(instant);
    return scheduler.pass(instant);
  };
  /** A job each minute, created at T0 with the clock a second on after (a change at the instant of creation would tell no event). */
  async function jobAtT0(fields: JobFields = {}): Promise<Schema<'JobResponse'>> {
    clock.set(T0);
    const job = await createJob(api, { cronExpression: '* * * * *', ...fields });
    clock.set(new Date(T0.getTime() + 1000));
    return job;
  }
  const timeline = (id: string, from: string, to: string) => http().get(`/jobs/${id}/timeline?from=${from}&to=${to}`);
  const executionOf = async (jobId: string, slot: Date) =>
    (await db.sql(`SELECT id FROM executions WHERE job_id = $1 AND scheduled_for = $2`, [jobId, slot])).rows[0]
      ?.id as string;

  describe('POST /jobs/:id/pause and /resume', () => {
    it('pause keeps a note and a resume instant, shown by the job and the list; resume clears them', async () => {
      const job = await jobAtT0();
      const resumeAt = '2026-12-07T08:00:00.000Z';
      const paused = await http().post(`/jobs/${job.id}/pause`).send({ note: '  DB migration  ', resumeAt });
      expect(paused.status).toBe(200);
      expect(paused.body).toMatchObject({ enabled: false, pausedNote: 'DB migration', resumeAt, nextRunAt: null });
      expect((await http().get(`/jobs/${job.id}`)).body).toMatchObject({ pausedNote: 'DB migration', resumeAt });
      const listed = (await http().get('/jobs?enabled=false')).body.items.find((j: Job) => j.id === job.id);
      expect(listed).toMatchObject({ pausedNote: 'DB migration', resumeAt });

      clock.set('2026-11-30T10:00:40Z');
      const resumed = await http().post(`/jobs/${job.id}/resume`);
      expect(resumed.status).toBe(200);
      expect(resumed.body).toMatchObject({
        enabled: true,
        pausedNote: null,
        resumeAt: null,
        nextRunAt: '2026-11-30T10:01:00.000Z',
      });
      const events = await db.sql(`SELECT type FROM events WHERE job_id = $1 ORDER BY seq`, [job.id]);
      expect(events.rows.map((e) => e.type)).toEqual(['job.created', 'job.paused', 'job.resumed']);
      const audit = (await http().get('/audit?limit=100')).body.items.filter((a: AuditEvent) => a.targetId === job.id);
      expect(audit.map((a: AuditEvent) => a.action)).toEqual(['job.resumed', 'job.paused', 'job.created']);
    });

    it('a pause without a resume instant stays paused; resuming a running job writes nothing', async () => {
      const job = await jobAtT0();
      expect((await http().post(`/jobs/${job.id}/pause`).send({})).body).toMatchObject({
        enabled: false,
        pausedNote: null,
        resumeAt: null,
      });
      clock.set('2026-11-30T10:00:40Z');
      await http().post(`/jobs/${job.id}/resume`).expect(200);
      const again = await http().post(`/jobs/${job.id}/resume`);
      expect(again.body.updatedAt).toBe((await http().get(`/jobs/${job.id}`)).body.updatedAt);
      const events = await db.sql(`SELECT type FROM events WHERE job_id = $1 ORDER BY seq`, [job.id]);
      expect(events.rows.map((e) => e.type)).toEqual(['job.created', 'job.paused', 'job.resumed']);
    });

    it.each([
      [{ resumeAt: '2026-11-30T10:00:00Z' }, 'resumeAt must be in the future'],
      [{ resumeAt: '2027-11-30T10:00:32Z' }, 'resumeAt must be at most a year ahead'],
      [{ resumeAt: 'tomorrow' }, 'resumeAt must be an ISO 8601 instant'],
      [{ resumeAt: '2026-12-01T10:00:00' }, 'resumeAt must be an ISO 8601 instant'],
      [{ note: 'x'.repeat(1001) }, 'note must be at most 1000 characters'],
      [{ note: 42 }, 'note must be a string'],
      [{ until: '2026-12-01T10:00:00Z' }, 'until is not an accepted field'],
    ])('pause %j is a 400: %s, and the job runs on', async (body, message) => {
      const job = await jobAtT0();
      const res = await http().post(`/jobs/${job.id}/pause`).send(body);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(message);
      expect((await http().get(`/jobs/${job.id}`)).body).toMatchObject({ enabled: true, pausedNote: null });
    });

    it('PATCH enabled still pauses and resumes, and resuming so clears the note', async () => {
      const job = await jobAtT0();
      await http().post(`/jobs/${job.id}/pause`).send({ note: 'why', resumeAt: '2026-12-01T00:00:00Z' });
      const res = await http().patch(`/jobs/${job.id}`).send({ enabled: true });
      expect(res.body).toMatchObject({ enabled: true, pausedNote: null, resumeAt: null });
      expect((await http().patch(`/jobs/${job.id}`).send({ enabled: false })).body).toMatchObject({
        enabled: false,
        pausedNote: null,
      });
    });

    it('an unknown job is a 404', async () => {
      const res = await http().post('/jobs/00000000-0000-4000-8000-000000000000/pause').send({});
      expect(res.status).toBe(404);
    });
  });

  describe('the scheduler resumes a job at its resume instant', () => {
    it('wakes for it, resumes it as of that instant (job.resumed) and fires a slot at that instant', async () => {
      const job = await jobAtT0();
      await http().post(`/jobs/${job.id}/pause`).send({ note: 'back at 10:05', resumeAt: '2026-11-30T10:05:00Z' });
      await db.sql(`UPDATE jobs SET deleted_at = $2 WHERE id <> $1 AND deleted_at IS NULL`, [job.id, T0]); // the only job
      expect(await runtime.app.get(JobRepository).earliestNextRun(500)).toEqual(at('10:05:00'));
      await passAt(at('10:04:59'));
      expect((await http().get(`/jobs/${job.id}`)).body).toMatchObject({ enabled: false });
      await passAt(at('10:05:00'));
      expect((await http().get(`/jobs/${job.id}`)).body).toMatchObject({
        enabled: true,
        pausedNote: null,
        resumeAt: null,
        nextRunAt: '2026-11-30T10:06:00.000Z',
      });
      expect(await executionOf(job.id, at('10:05:00'))).toBeDefined();
      const resumed = await db.sql(`SELECT at FROM events WHERE job_id = $1 AND type = 'job.resumed'`, [job.id]);
      expect(resumed.rows).toEqual([{ at: at('10:05:00') }]);
    });

    it('reached late, it resumes as of its instant and the slots since are a misfire of the policy', async () => {
      const job = await jobAtT0();
      await http().post(`/jobs/${job.id}/pause`).send({ resumeAt: '2026-11-30T10:05:00Z' });
      await passAt(at('10:20:10'));
      expect(await executionOf(job.id, at('10:20:00'))).toBeDefined();
      const events = await db.sql(
        `SELECT type, at, slot, detail->>'lastSlot' AS last FROM events WHERE job_id = $1 AND type NOT LIKE 'execution.%' AND type <> 'job.created' ORDER BY seq`,
        [job.id],
      );
      expect(events.rows).toEqual([
        { type: 'job.paused', at: new Date(T0.getTime() + 1000), slot: null, last: null },
        { type: 'job.resumed', at: at('10:05:00'), slot: null, last: null },
        { type: 'slot.missed', at: at('10:20:10'), slot: at('10:05:00'), last: '2026-11-30T10:19:00.000Z' },
      ]);
    });
  });

  describe('GET /jobs/:id/timeline', () => {
    it('tells each slot its fate: fired, skipped, missed, paused, upcoming and unknown (with why)', async () => {
      const job = await jobAtT0({ concurrencyPolicy: 'FORBID' });
      const id = job.id;
      await passAt(at('10:01:00'));
      const first = await executionOf(id, at('10:01:00'));
      await http().post(`/executions/${first}/start`).expect(200);
      await passAt(at('10:02:00')); // FORBID: skipped while the first runs
      await http().post(`/executions/${first}/succeed`).send({ exitCode: 0 }).expect(200);
      await passAt(at('10:03:00'));
      const third = await executionOf(id, at('10:03:00'));
      await http().post(`/executions/${third}/cancel`).expect(200);
      await passAt(at('10:10:30')); // no scheduler from 10:04 to 10:09: RUN_ONCE fires 10:10 only
      await passAt(at('10:11:00'));
      clock.set(at('10:11:30'));
      await http().post(`/jobs/${id}/pause`).send({ note: 'a pause' }).expect(200);
      clock.set(at('10:13:30'));
      await http().post(`/jobs/${id}/resume`).expect(200);
      clock.set(at('10:14:10')); // 10:14 is due, but no pass has handled it yet

      const res = await timeline(id, '2026-11-30T09:59:00Z', '2026-11-30T10:17:00Z');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        jobId: id,
        from: '2026-11-30T09:59:00.000Z',
        to: '2026-11-30T10:17:00.000Z',
        now: '2026-11-30T10:14:10.000Z',
      });
      const { slots } = res.body as Schema<'TimelineResponse'>;
      const short = slots.map((s) => [s.slot.slice(11, 16), s.fate, s.reason]);
      expect(short).toEqual([
        ['09:59', 'unknown', 'before_created'],
        ['10:00', 'unknown', 'before_created'],
        ['10:01', 'fired', null],
        ['10:02', 'skipped', null],
        ['10:03', 'fired', null],
        ...['10:04', '10:05', '10:06', '10:07', '10:08', '10:09'].map((m) => [m, 'missed', 'no_scheduler']),
        ['10:10', 'fired', null],
        ['10:11', 'skipped', null], // the run of 10:10 is still queued (no worker here)
        ['10:12', 'paused', null],
        ['10:13', 'paused', null],
        ['10:14', 'unknown', 'not_reached'],
        ['10:15', 'upcoming', null],
        ['10:16', 'upcoming', null],
      ]);
      expect(slots[2]!.execution).toEqual({ id: first, status: 'SUCCEEDED' });
      expect(slots[3]!.activeExecution).toEqual({ id: first, status: 'RUNNING' });
      expect(slots[4]!.execution).toEqual({ id: third, status: 'CANCELLED' });
      expect(slots[12]!.activeExecution).toEqual({ id: await executionOf(id, at('10:10:00')), status: 'QUEUED' });
      expect(slots[5]!.missed).toEqual({
        policy: 'RUN_ONCE',
        count: 6,
        countCapped: false,
        firstSlot: '2026-11-30T10:04:00.000Z',
        lastSlot: '2026-11-30T10:09:00.000Z',
        firedSlot: '2026-11-30T10:10:00.000Z',
      });
      // an episode that began before the window is found too
      const later = await timeline(id, '2026-11-30T10:07:00Z', '2026-11-30T10:09:00Z');
      expect(later.body.slots.map((s: Slot) => s.fate)).toEqual(['missed', 'missed']);
    });

    it('the slots of a job paused with a resume instant are paused until then, upcoming after', async () => {
      const job = await jobAtT0();
      await http().post(`/jobs/${job.id}/pause`).send({ resumeAt: '2026-11-30T10:03:00Z' }).expect(200);
      const res = await timeline(job.id, '2026-11-30T10:01:00Z', '2026-11-30T10:05:00Z');
      expect(res.body.slots.map((s: Slot) => [s.slot.slice(11, 16), s.fate])).toEqual([
        ['10:01', 'paused'],
        ['10:02', 'paused'],
        ['10:03', 'upcoming'],
        ['10:04', 'upcoming'],
      ]);
    });

    it.each([
      ['', '&to=2026-11-30T11:00:00Z', 'from is required'],
      ['from=yesterday', '&to=2026-11-30T11:00:00Z', 'from must be an ISO 8601 instant'],
      ['from=2026-11-30T10:00:00', '&to=2026-11-30T11:00:00Z', 'from must be an ISO 8601 instant'],
      ['from=2026-11-30T10:00:00Z', '&to=2026-13-30T11:00:00Z', 'to must be an ISO 8601 instant'],
      ['from=2026-11-30T11:00:00Z', '&to=2026-11-30T10:00:00Z', 'from must be before to'],
      ['from=2026-11-30T10:00:00Z', '&to=2026-11-30T10:00:00Z', 'from must be before to'],
      ['from=2026-11-30T10:00:00Z', '&to=2026-12-01T10:00:00Z', 'holds more than 1000 slots'],
    ])('?%s%s is a 400: %s', async (from, to, message) => {
      const job = await jobAtT0();
      const res = await http().get(`/jobs/${job.id}/timeline?${from}${to}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(message);
    });

    it('an unknown job is a 404', async () => {
      const res = await timeline(
        '00000000-0000-4000-8000-000000000000',
        '2026-11-30T10:00:00Z',
        '2026-11-30T11:00:00Z',
      );
      expect(res.status).toBe(404);
    });
  });
});
