import request from 'supertest';
import { createTestApp, TestApp } from '../support/test-app.js';

/** What a request with a mistyped or missing field is told: every mistake, each once, with the field it meant. */
describe('mistakes in the fields of a request', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  // the bodies are wrong on purpose, so untyped (not the OpenAPI types the other tests use)
  const refusal = async (path: string, body: object) =>
    ((await request(t.app.getHttpServer()).post(path).send(body).expect(400)).body as { message: string }).message;

  it('a mistyped field names the field it most likely meant, and the missing one is said to be missing', async () => {
    expect(await refusal('/jobs', { name: 'n', comand: 'x', cronExpression: '@daily' })).toBe(
      'comand is not an accepted field (did you mean command?); command is required',
    );
  });

  it('a field near no accepted one gets no guess', async () => {
    expect(await refusal('/jobs', { name: 'n', command: 'x', cronExpression: '@daily', owner: 'me' })).toBe(
      'owner is not an accepted field',
    );
  });

  it('in nested objects too, by their path', async () => {
    expect(
      await refusal('/jobs', { name: 'n', command: 'x', cronExpression: '@daily', alerts: [{ chanel: 'ops' }] }),
    ).toBe('alerts.0.chanel is not an accepted field (did you mean channel?); alerts.0.channel is required');
  });

  it('an orbit file: every entry’s mistakes, and a mistyped section', async () => {
    const message = await refusal('/apply', {
      dryRun: true,
      file: { job: {}, jobs: { a: { command: 'x', cronExpresion: '@daily' }, b: 'not an object' } },
    });
    expect(message).toBe('file.job is not an accepted field (did you mean jobs?)');
    expect(
      await refusal('/apply', {
        dryRun: true,
        file: { jobs: { a: { command: 'x', cronExpresion: '@daily' }, b: 'not an object' } },
      }),
    ).toBe(
      'jobs.a.cronExpresion is not an accepted field (did you mean cronExpression?); jobs.a.cronExpression is required; ' +
        'jobs.b must be an object of its fields',
    );
  });
});
