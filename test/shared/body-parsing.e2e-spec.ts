import request from 'supertest';
import { createTestApp, TestApp } from '../support/test-app.js';

// the bodies are malformed or too large on purpose, so untyped (not the OpenAPI types the other tests use)
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

  it.each([
    ['text/plain', 'name=x'],
    ['application/x-www-form-urlencoded', 'name=x&command=true'],
    ['application/xml', '<job/>'],
  ])('a %s body is a 415 that asks for JSON', async (contentType, body) => {
    const res = await request(t.app.getHttpServer()).post('/jobs').set('content-type', contentType).send(body);
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      statusCode: 415,
      message: 'Request body must be JSON, sent with Content-Type: application/json',
      error: 'Unsupported Media Type',
    });
  });

  it.each(['42', 'null', '"a string"', 'true', '[]', '[{}]'])(
    'the JSON value %s is a 400: a body is an object',
    async (body) => {
      const res = await request(t.app.getHttpServer()).post('/jobs').set('content-type', 'application/json').send(body);
      expect(res.body).toEqual({
        statusCode: 400,
        message: 'Request body must be a JSON object',
        error: 'Bad Request',
      });
    },
  );

  it('an empty body that says it is JSON is a 400 that says so', async () => {
    const res = await request(t.app.getHttpServer()).post('/jobs').set('content-type', 'application/json').send('');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      statusCode: 400,
      message: 'Request body is empty but Content-Type is application/json',
      error: 'Bad Request',
    });
  });

  it('a URL the router cannot decode is a 400 in the usual shape, with the security headers', async () => {
    const res = await request(t.app.getHttpServer()).get('/jobs/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, message: expect.any(String), error: 'Bad Request' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
