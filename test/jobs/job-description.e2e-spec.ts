import request from 'supertest';
import { createTestApp, TestApp } from '../support/test-app.js';

type Body = Record<string, unknown>;

/** The worked example of docs/architecture.md ("Adding a job field"): what it must show, end to end. */
describe("a job's description", () => {
  let t: TestApp;
  const http = () => request(t.app.getHttpServer());
  const create = (fields: Body) =>
    http()
      .post('/jobs')
      .send({ command: 'true', cronExpression: null, ...fields });

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('is stored trimmed, answered by GET, and changed by PATCH; a job without one has the empty text', async () => {
    const job = (await create({ name: 'described', description: '  Backs up orders; ask #data  ' }).expect(201))
      .body as Body;
    expect(job.description).toBe('Backs up orders; ask #data');
    expect(
      (
        await http()
          .get(`/jobs/${String(job.id)}`)
          .expect(200)
      ).body,
    ).toMatchObject({ description: 'Backs up orders; ask #data' });

    const changed = await http()
      .patch(`/jobs/${String(job.id)}`)
      .send({ description: 'Now the invoices too' })
      .expect(200);
    expect(changed.body).toMatchObject({ description: 'Now the invoices too' });

    expect((await create({ name: 'plain' }).expect(201)).body).toMatchObject({ description: '' });
  });

  it('too long, or not text, is a 400 naming the field, and nothing is written', async () => {
    const long = await create({ name: 'too-long', description: 'x'.repeat(2001) }).expect(400);
    expect(long.body).toMatchObject({ message: 'description must be at most 2000 characters', field: 'description' });
    const number = await create({ name: 'not-text', description: 42 }).expect(400);
    expect(number.body).toMatchObject({ field: 'description' });
    const names = ((await http().get('/jobs').expect(200)).body as { items: Body[] }).items.map((job) => job.name);
    expect(names).not.toEqual(expect.arrayContaining(['too-long']));
    expect(names).not.toEqual(expect.arrayContaining(['not-text']));
  });

  it('an orbit file sets it, and the export writes it where a job has one', async () => {
    const file = {
      jobs: {
        'from-file': { command: 'true', cronExpression: '@daily', description: 'Made by a file' },
        'without-one': { command: 'true', cronExpression: '@daily' },
      },
    };
    await http().post('/apply').send({ file }).expect(200);
    const exported = (await http().get('/orbit-file').expect(200)).body as { jobs: Record<string, Body> };
    expect(exported.jobs['from-file']).toMatchObject({ description: 'Made by a file' });
    expect(exported.jobs['without-one']).not.toHaveProperty('description');
  });
});
