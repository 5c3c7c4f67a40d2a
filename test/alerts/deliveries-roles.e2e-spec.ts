import request from 'supertest';
import { DETAILS_FOR_ADMINS } from '../../src/alerts/domain/delivery.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { startReceiver, startSmtp } from './support.js';

type Role = 'viewer' | 'operator' | 'admin';
interface Attempt {
  httpStatus: number | null;
  smtpResponse: string | null;
  error: string | null;
}

/** What the refusing target answers: a server-side read-back if a viewer could see it. */
const INSIDE = 'upstream db at 10.0.0.7 refused: password authentication failed for "orbit"';

describe('GET /deliveries: the status for every role, what the target said for admins only', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const tokens: Partial<Record<Role, string>> = {};
  const http = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 500, body: INSIDE }));
    smtp = await startSmtp();
    t = await createTestApp({
      env: { ORBIT_ALERTS_ALLOW_PRIVATE: 'true', ORBIT_SMTP_URL: smtp.url, ORBIT_SMTP_FROM: 'orbit@example.com' },
    });
    for (const role of ['viewer', 'operator', 'admin'] as const) {
      tokens[role] = (
        await http()
          .post('/tokens')
          .send({ name: `deliveries-${role}`, role })
          .expect(201)
      ).body.token;
    }
    const channels = [
      { name: 'refusing', type: 'webhook', url: receiver.url('/refusing') },
      { name: 'closed', type: 'webhook', url: 'http://127.0.0.1:1/closed' },
      { name: 'mail', type: 'email', to: ['oncall@example.com'] },
    ];
    for (const channel of channels) {
      const { body } = await http().post('/channels').send(channel).expect(201);
      await http().post(`/channels/${body.id}/test`).expect(200);
    }
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await smtp?.close();
  });

  const attempts = async (role: Role): Promise<Record<string, Attempt>> => {
    const { body } = await http().get('/deliveries').set('Authorization', `Bearer ${tokens[role]}`).expect(200);
    const items = body.items as Array<{ channelName: string; attempts: Attempt[] }>;
    return Object.fromEntries(items.map((delivery) => [delivery.channelName, delivery.attempts[0]!]));
  };

  it('an admin reads each attempt as recorded: the answer, the error, the SMTP reply', async () => {
    expect(await attempts('admin')).toEqual({
      refusing: expect.objectContaining({ httpStatus: 500, error: `HTTP 500: ${INSIDE}` }),
      closed: expect.objectContaining({ httpStatus: null, error: expect.stringContaining('ECONNREFUSED 127.0.0.1') }),
      mail: expect.objectContaining({ smtpResponse: expect.stringMatching(/^250 .+/), error: null }),
    });
  });

  it.each(['viewer', 'operator'] as const)('as %s: the status only', async (role) => {
    const seen = await attempts(role);
    expect(seen).toEqual({
      refusing: expect.objectContaining({ httpStatus: 500, smtpResponse: null, error: 'HTTP 500' }),
      closed: expect.objectContaining({ httpStatus: null, smtpResponse: null, error: DETAILS_FOR_ADMINS }),
      mail: expect.objectContaining({ httpStatus: null, smtpResponse: '250', error: null }),
    });
    expect(JSON.stringify(seen)).not.toContain('10.0.0.7');
  });
});
