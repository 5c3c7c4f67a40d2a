import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { EventLog } from '../../src/events/application/event-log.js';
import { TransactionRunner } from '../../src/shared/application/transaction-runner.js';
import { createTestApp, TestApp } from '../support/test-app.js';

describe('events a writer appends (slot events, notices)', () => {
  let t: TestApp;
  let log: EventLog;
  const jobId = randomUUID();

  beforeAll(async () => {
    t = await createTestApp();
    log = t.app.get(EventLog);
  });
  afterAll(() => t?.close());

  const newest = async () => (await t.db.sql(`SELECT coalesce(max(seq), 0) AS seq FROM events`)).rows[0].seq as string;

  it('are read back in order with their slot and detail, as appended', async () => {
    const after = Number(await newest());
    const slot = new Date('2026-11-30T10:00:00.000Z');
    await log.append([
      {
        type: 'slot.skipped',
        at: new Date('2026-11-30T10:00:00.004Z'),
        jobId,
        slot,
        detail: { activeExecutionId: 'x' },
      },
      {
        type: 'slot.missed',
        at: new Date('2026-11-30T10:05:00.000Z'),
        jobId,
        slot,
        detail: { policy: 'SKIP', count: 3 },
      },
    ]);
    const events = await log.readAfter(after, 10);
    expect(
      events.map(({ type, at, jobId: job, slot: s, detail, executionId }) => ({
        type,
        at,
        job,
        s,
        detail,
        executionId,
      })),
    ).toEqual([
      {
        type: 'slot.skipped',
        at: new Date('2026-11-30T10:00:00.004Z'),
        job: jobId,
        s: slot,
        detail: { activeExecutionId: 'x' },
        executionId: null,
      },
      {
        type: 'slot.missed',
        at: new Date('2026-11-30T10:05:00.000Z'),
        job: jobId,
        s: slot,
        detail: { policy: 'SKIP', count: 3 },
        executionId: null,
      },
    ]);
  });

  it('commit with the transaction that appends them, and not when it rolls back', async () => {
    const before = await newest();
    await expect(
      t.app.get(TransactionRunner).run(async () => {
        await log.append([{ type: 'slot.late', at: new Date(), jobId, slot: new Date() }]);
        throw new Error('decided otherwise');
      }),
    ).rejects.toThrow('decided otherwise');
    expect(await newest()).toBe(before);
  });

  it('wake the listeners of the stream', async () => {
    const listener = new pg.Client({ connectionString: t.db.url });
    await listener.connect();
    try {
      await listener.query('LISTEN orbit_events');
      const notified = new Promise((resolve) => listener.once('notification', resolve));
      await log.append([{ type: 'slot.late', at: new Date(), jobId, slot: new Date() }]);
      await expect(notified).resolves.toMatchObject({ channel: 'orbit_events' });
    } finally {
      await listener.end();
    }
  });
});
