import request from 'supertest';
import type { TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * A job of a running Orbit (scheduler and worker) whose timeline holds each fate the job page
 * tells apart: fired, skipped by FORBID, missed (as if no scheduler had run for half a minute),
 * then paused. Answers the job and the window (the address's `from` and `to`) that shows them.
 */
export async function jobWithEveryFate(
  t: TestApp,
  name: string,
): Promise<{ job: { id: string; name: string }; from: string; to: string }> {
  const api = () => request(t.app.getHttpServer());
  const slotEvents = async (jobId: string) =>
    (await t.db.sql(`SELECT type FROM events WHERE job_id = $1 AND type LIKE 'slot.%'`, [jobId])).rows.map(
      (row) => row.type as string,
    );
  // every second, each run two seconds long: FORBID skips the slots while one runs
  const job = (
    await api()
      .post('/jobs')
      .send({ name, command: 'sleep 2', cronExpression: '* * * * * *', concurrencyPolicy: 'FORBID' })
      .expect(201)
  ).body as { id: string; name: string };
  await waitFor(async () => ((await slotEvents(job.id)).includes('slot.skipped') ? true : undefined), 'a skip');
  // the next pass finds the slot long past (a misfire)
  await t.db.sql(`UPDATE jobs SET next_run_at = date_trunc('second', now()) - interval '30 seconds' WHERE id = $1`, [
    job.id,
  ]);
  await waitFor(async () => ((await slotEvents(job.id)).includes('slot.missed') ? true : undefined), 'a misfire');
  await api().post(`/jobs/${job.id}/pause`).send({ note: 'seen enough' }).expect(200);

  const second = Math.floor(Date.now() / 1000) * 1000;
  return { job, from: new Date(second - 60_000).toISOString(), to: new Date(second + 5_000).toISOString() };
}
