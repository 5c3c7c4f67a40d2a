import { Channel } from '../../src/alerts/domain/channel.js';
import type { AttemptOutcome } from '../../src/alerts/domain/delivery.js';
import { ChannelSender } from '../../src/alerts/infrastructure/channel-sender.js';
import { SMTP_TLS_REQUIRED } from '../../src/alerts/infrastructure/smtp-transport.js';
import { loadConfig } from '../../src/config/orbit-config.js';
import { SystemClock } from '../../src/shared/infrastructure/system-clock.js';
import { startSmtp, testDelivery } from './support.js';

const PASSWORD = 'smtp-pass-s3cret';

/** One email alert over `smtpUrl`, as a node with that ORBIT_SMTP_URL sends it. */
async function mail(smtpUrl: string): Promise<AttemptOutcome> {
  const config = loadConfig({ ORBIT_SMTP_URL: smtpUrl, ORBIT_SMTP_FROM: 'orbit@example.com', LOG_LEVEL: 'silent' }, []);
  const sender = new ChannelSender(config, new SystemClock());
  const channel = Channel.create({ name: 'oncall', type: 'email', to: ['oncall@example.com'] }, new Date());
  try {
    return await sender.send(channel, testDelivery(channel), AbortSignal.timeout(5000));
  } finally {
    sender.onApplicationShutdown();
  }
}

/** ORBIT_SMTP_URL with credentials for `server`. */
const withLogin = (server: { url: string }, query = '') =>
  server.url.replace('smtp://', `smtp://orbit:${PASSWORD}@`) + query;

describe('email with SMTP credentials over smtp://', () => {
  let plain: Awaited<ReturnType<typeof startSmtp>>;
  let starttls: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    plain = await startSmtp();
    starttls = await startSmtp({ startTls: true });
  });
  afterAll(async () => {
    await plain?.close();
    await starttls?.close();
  });

  it('a server without STARTTLS never gets them: a failed attempt that says why', async () => {
    const outcome = await mail(withLogin(plain));
    expect(outcome).toMatchObject({ ok: false, error: expect.stringContaining(`${SMTP_TLS_REQUIRED}: `) });
    expect(plain.logins).toEqual([]);
    expect(plain.mails).toEqual([]);
  });

  it('a server with STARTTLS gets them once the connection is encrypted', async () => {
    // smtp-server's own certificate is self-signed
    const outcome = await mail(withLogin(starttls, '?tls.rejectUnauthorized=false'));
    expect(outcome).toMatchObject({ ok: true, smtpResponse: expect.stringMatching(/^250 /) });
    expect(starttls.logins).toEqual([{ username: 'orbit', password: PASSWORD, secure: true }]);
    expect(starttls.mails).toHaveLength(1);
  });

  it('requireTLS=false in the URL is the explicit opt-out: then they go in clear', async () => {
    const outcome = await mail(withLogin(plain, '?requireTLS=false'));
    expect(outcome).toMatchObject({ ok: true });
    expect(plain.logins).toEqual([{ username: 'orbit', password: PASSWORD, secure: false }]);
  });
});
