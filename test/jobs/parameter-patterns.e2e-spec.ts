import request from 'supertest';
import type { Schema } from '../support/api-types.js';
import { createJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';

/**
 * A backtracking engine (RegExp) took 4.7 s on this pattern and a 28-character value that does
 * not match, twice as long for each character more, and the node answered nothing meanwhile.
 */
const EVIL_PATTERN = '([a-z0-9]+\\.?)+';

describe('parameter patterns over HTTP', () => {
  let t: TestApp;
  const http = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('a value of 4 KiB against a pattern that backtracks elsewhere gets its 400, and /health/live answers meanwhile', async () => {
    const job = await createJob(t, {
      name: 'evil',
      command: 'true',
      cronExpression: null,
      parameters: [{ name: 'HOST', pattern: EVIL_PATTERN }],
    });
    const value = `${'a'.repeat(4095)}!`;

    // with a backtracking engine the event loop stays busy matching, and neither answers
    const [run, live] = await Promise.all([
      http()
        .post(`/jobs/${job.id}/executions`)
        .send({ parameters: { HOST: value } } satisfies Schema<'RunRequestDto'>),
      http().get('/health/live'),
    ]);
    expect(run.status).toBe(400);
    expect(run.body.message).toBe(`parameters.HOST must match ${EVIL_PATTERN}`);
    expect(live.status).toBe(200);

    await http()
      .post(`/jobs/${job.id}/executions`)
      .send({ parameters: { HOST: 'db1.example.org' } })
      .expect(201);
  });

  it('a pattern RE2 cannot match in linear time is a 400 naming the parameter and why, and no job is written', async () => {
    const res = await http()
      .post('/jobs')
      .send({
        name: 'lookahead',
        command: 'true',
        cronExpression: null,
        parameters: [{ name: 'TARGET' }, { name: 'HOST', pattern: '(?!test)[a-z]+' }],
      });
    expect(res.status).toBe(400);
    expect((res.body as Schema<'ErrorResponseDto'>).message).toContain(
      'parameters[1].pattern is not a regular expression Orbit accepts (RE2 syntax, without backreferences or lookaround): invalid or unsupported Perl syntax: `(?!`',
    );
    expect((await t.db.sql(`SELECT count(*)::int AS n FROM jobs WHERE name = 'lookahead'`)).rows[0].n).toBe(0);
  });
});
