import request from 'supertest';
import { FakeClock } from '../support/fake-clock.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { expectErrorBody } from '../support/error-body.js';

describe('GET /schedules/preview', () => {
  const clock = new FakeClock(new Date('2026-03-27T12:00:00.000Z'));
  let t: TestApp;
  const preview = (query: Record<string, string>) =>
    request(t.app.getHttpServer()).get('/schedules/preview').query(query);

  beforeAll(async () => {
    t = await createTestApp({ clock });
  });
  afterAll(() => t.close());

  it('lists the next five fire times in UTC by default', async () => {
    const res = await preview({ cron: '0 9 * * *' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      runs: [
        '2026-03-28T09:00:00.000Z',
        '2026-03-29T09:00:00.000Z',
        '2026-03-30T09:00:00.000Z',
        '2026-03-31T09:00:00.000Z',
        '2026-04-01T09:00:00.000Z',
      ],
    });
  });

  it('follows the time zone across its DST change, as a job would fire', async () => {
    const res = await preview({ cron: '0 9 * * *', timezone: 'Europe/Berlin', count: '3' });
    expect(res.body).toEqual({
      runs: ['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z'],
    });
  });

  it('takes what a job takes: 6 fields with seconds, and macros', async () => {
    expect((await preview({ cron: '30 * * * * *', count: '1' })).body).toEqual({ runs: ['2026-03-27T12:00:30.000Z'] });
    expect((await preview({ cron: '@hourly', count: '1' })).body).toEqual({ runs: ['2026-03-27T13:00:00.000Z'] });
  });

  it.each([
    ['cron', {}, 'cron is required'],
    ['cron', { cron: '' }, 'cron must not be blank'],
    ['cron', { cron: '* * * *' }, "cron '* * * *' must have 5 fields"],
    ['cron', { cron: '61 * * * *' }, "cron '61 * * * *' is not valid"],
    ['cron', { cron: '@sometimes' }, "cron '@sometimes' is not supported"],
    ['cron', { cron: '0 0 30 2 *' }, "cron '0 0 30 2 *' never matches a date"],
    ['timezone', { cron: '* * * * *', timezone: 'Mars/Olympus' }, "timezone 'Mars/Olympus' is not an IANA time zone"],
    ['count', { cron: '* * * * *', count: '0' }, 'count must not be less than 1'],
    ['count', { cron: '* * * * *', count: '101' }, 'count must not be greater than 100'],
    ['count', { cron: '* * * * *', count: 'many' }, 'count must be an integer'],
    ['every', { cron: '* * * * *', every: 'day' }, 'every is not an accepted field'],
  ])('a bad %s → 400 naming it: %j', async (field, query, message) => {
    const res = await preview(query);
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'Bad Request');
    expect(res.body).toMatchObject({ message: expect.stringContaining(message), field });
    expect(res.body.message.startsWith(message.split(' ')[0]!)).toBe(true);
  });
});
