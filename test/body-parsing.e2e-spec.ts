import request from 'supertest';
import { createTestApp, TestApp } from './support/test-app.js';

describe('request bodies the parser refuses', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('invalid JSON is a 400 that does not echo the body back', async () => {
    const res = await request(t.app.getHttpServer())
      .post('/jobs')
      .set('content-type', 'application/json')
      .send('{"name": "secret-looking-text", oops');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, message: 'Request body is not valid JSON', error: 'Bad Request' });
  });

  it('a body over 64 KiB is a 413', async () => {
    const res = await request(t.app.getHttpServer())
      .post('/jobs')
      .send({ name: 'big', command: 'x'.repeat(70 * 1024), cronExpression: '* * * * *' });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      statusCode: 413,
      message: 'Request body is larger than 64 KiB',
      error: 'Payload Too Large',
    });
  });
});
