import request from 'supertest';
import type { Schema } from '../support/api-types.js';
import { createJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';

type Page = Schema<'ExecutionPageResponse'>;

/** GET /executions?idPrefix=: the short ids the dashboard shows, looked up as git looks up a commit. */
describe('executions by the start of their id', () => {
  let t: TestApp;
  const api = () => request(t.app.getHttpServer());
  const IDS = [
    'abcd0001-0000-4000-8000-000000000001',
    'abcd0002-0000-4000-8000-000000000002',
    'abce0003-0000-4000-8000-000000000003',
  ];
  const list = async (query: string) =>
    ((await api().get(`/executions?${query}`).expect(200)).body as Page).items.map((run) => run.id);

  beforeAll(async () => {
    t = await createTestApp();
    const job = await createJob(t, { name: 'j', command: 'true', cronExpression: '@yearly' });
    for (const id of IDS) {
      const run = (await api().post(`/jobs/${job.id}/executions`).send({}).expect(201))
        .body as Schema<'ExecutionResponse'>;
      await t.db.sql('UPDATE executions SET id = $1 WHERE id = $2', [id, run.id]);
    }
  });
  afterAll(() => t.close());

  it.each([
    ['abcd', [IDS[1], IDS[0]]],
    ['ABCD0001', [IDS[0]]],
    ['abcd00010000', [IDS[0]]],
    ['abc', undefined],
    ['abce', [IDS[2]]],
    ['abcf', []],
    [IDS[1]!.replace(/-/g, ''), [IDS[1]]],
  ])('idPrefix=%s', async (prefix, expected) => {
    if (expected) expect(await list(`idPrefix=${prefix}`)).toEqual(expected);
    else {
      const res = await api().get(`/executions?idPrefix=${prefix}`).expect(400);
      expect((res.body as Schema<'ErrorResponseDto'>).message).toBe(
        'idPrefix must be 4 to 32 hex digits, without dashes',
      );
    }
  });

  it.each(['abcd-0001', 'wxyz', 'abcd'.repeat(9)])('%s is refused: hex digits only, 4 to 32', async (prefix) => {
    const res = await api().get(`/executions?idPrefix=${prefix}`).expect(400);
    expect((res.body as Schema<'ErrorResponseDto'>).message).toBe(
      'idPrefix must be 4 to 32 hex digits, without dashes',
    );
  });

  it('combines with the other filters and pages', async () => {
    expect(await list('idPrefix=abcd&status=SUCCEEDED')).toEqual([]);
    const first = (await api().get('/executions?idPrefix=abcd&limit=1').expect(200)).body as Page;
    expect(first.items.map((run) => run.id)).toEqual([IDS[1]]);
    expect(await list(`idPrefix=abcd&limit=1&cursor=${first.nextCursor}`)).toEqual([IDS[0]]);
  });
});
