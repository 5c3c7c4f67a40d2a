import request from 'supertest';
import { createTestApp, TestApp } from '../support/test-app.js';

const JOB = { name: 'nightly', command: 'true', cronExpression: '@daily' };

/**
 * An error answer names the field its message is about (`field`), and a refusal of several
 * mistakes names each one's field (`errors`), so that a client shows each message beside its input
 * without reading the text; `statusCode`, `message` and `error` are as they always were.
 */
describe('error answers name their fields', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const http = () => request(t.app.getHttpServer());

  it('a domain error names its field', async () => {
    const res = await http()
      .post('/jobs')
      .send({ ...JOB, cronExpression: '61 * * * *' })
      .expect(400);
    expect(res.body).toEqual({
      statusCode: 400,
      message: expect.stringMatching(/^cronExpression '61 \* \* \* \*' is not valid/),
      error: 'Bad Request',
      field: 'cronExpression',
    });
  });

  it('a domain error about a part of a field names it by its path', async () => {
    const res = await http()
      .post('/jobs')
      .send({ ...JOB, triggers: [{ after: 'no-such-job' }] })
      .expect(400);
    expect(res.body).toEqual({
      statusCode: 400,
      message: "triggers[0].after: no job is named 'no-such-job'",
      error: 'Bad Request',
      field: 'triggers[0].after',
    });
  });

  it('a duplicate name is a conflict about the name', async () => {
    await http()
      .post('/jobs')
      .send({ ...JOB, name: 'twice' })
      .expect(201);
    const res = await http()
      .post('/jobs')
      .send({ ...JOB, name: 'twice' })
      .expect(409);
    expect(res.body).toEqual({
      statusCode: 409,
      message: "A job named 'twice' already exists",
      error: 'Conflict',
      field: 'name',
    });
  });

  it('a validation failure with one mistake names its field', async () => {
    const res = await http()
      .post('/jobs')
      .send({ ...JOB, maxRetries: 'three' })
      .expect(400);
    expect(res.body).toEqual({
      statusCode: 400,
      message: 'maxRetries must be an integer number',
      error: 'Bad Request',
      field: 'maxRetries',
    });
  });

  it('a validation failure with several mistakes gives each with its field, in the order of the message', async () => {
    const res = await http()
      .post('/jobs')
      .send({ name: 'n', timeoutSeconds: 'long', comand: 'x', cronExpression: '@daily' })
      .expect(400);
    expect(res.body).toEqual({
      statusCode: 400,
      message:
        'comand is not an accepted field (did you mean command?); command is required; timeoutSeconds must be an integer number',
      error: 'Bad Request',
      errors: [
        { field: 'comand', message: 'comand is not an accepted field (did you mean command?)' },
        { field: 'command', message: 'command is required' },
        { field: 'timeoutSeconds', message: 'timeoutSeconds must be an integer number' },
      ],
    });
    expect(res.body.errors.map((e: { message: string }) => e.message).join('; ')).toBe(res.body.message);
  });

  it('several mistakes in one field name it once for the whole answer, and each beside its message', async () => {
    const res = await http()
      .post('/jobs')
      .send({ ...JOB, alerts: [{ chanel: 'ops' }] })
      .expect(400);
    expect(res.body).toMatchObject({
      message: 'alerts.0.chanel is not an accepted field (did you mean channel?); alerts.0.channel is required',
      errors: [
        { field: 'alerts.0.chanel', message: 'alerts.0.chanel is not an accepted field (did you mean channel?)' },
        { field: 'alerts.0.channel', message: 'alerts.0.channel is required' },
      ],
    });
    expect(res.body).not.toHaveProperty('field');

    const same = await http()
      .post('/jobs')
      .send({ ...JOB, alerts: 'ops' })
      .expect(400);
    expect(same.body).toMatchObject({ field: 'alerts', errors: [{ field: 'alerts' }, { field: 'alerts' }] });
  });

  it('a mistake in the query names its parameter', async () => {
    const res = await http().get('/jobs').query({ limit: 'many' }).expect(400);
    expect(res.body).toMatchObject({ statusCode: 400, field: 'limit' });
  });

  it('an orbit file names each mistake by its path in the file', async () => {
    const res = await http()
      .post('/apply')
      .send({ dryRun: true, file: { jobs: { a: { command: 'x', cronExpresion: '@daily' }, b: 'not an object' } } })
      .expect(400);
    expect(res.body.errors).toEqual([
      { field: 'jobs.a.cronExpresion', message: expect.stringMatching(/^jobs\.a\.cronExpresion is not an accepted/) },
      { field: 'jobs.a.cronExpression', message: 'jobs.a.cronExpression is required' },
      { field: 'jobs.b', message: 'jobs.b must be an object of its fields' },
    ]);
  });

  it('an answer about no field has neither', async () => {
    const res = await http().get('/jobs/00000000-0000-4000-8000-000000000000').expect(404);
    expect(Object.keys(res.body).sort()).toEqual(['error', 'message', 'statusCode']);
  });
});
