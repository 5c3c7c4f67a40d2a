import { createServer, Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Channel } from '../../src/alerts/domain/channel.js';
import { ChannelSender } from '../../src/alerts/infrastructure/channel-sender.js';
import { loadConfig } from '../../src/config/orbit-config.js';
import { SystemClock } from '../../src/shared/infrastructure/system-clock.js';
import { testDelivery } from './support.js';

describe('email over an SMTP server that never answers', () => {
  let server: Server;
  let port: number;
  const sockets: Socket[] = [];
  const closed: Socket[] = [];

  beforeAll(async () => {
    // accepts the connection and says nothing: no greeting, ever
    server = createServer((socket) => {
      sockets.push(socket);
      socket.on('close', () => closed.push(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("the attempt's timeout ends the send: a failed attempt at once, and the connection is closed", async () => {
    const config = loadConfig(
      { ORBIT_SMTP_URL: `smtp://127.0.0.1:${port}`, ORBIT_SMTP_FROM: 'orbit@example.com', LOG_LEVEL: 'silent' },
      [],
    );
    const sender = new ChannelSender(config, new SystemClock());
    const channel = Channel.create({ name: 'silent-mail', type: 'email', to: ['oncall@example.com'] }, new Date());
    const started = Date.now();

    const outcome = await sender.send(channel, testDelivery(channel), AbortSignal.timeout(300));

    expect(outcome).toMatchObject({ ok: false, error: 'no answer within the attempt timeout' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(sockets).toHaveLength(1);
    // the socket the send opened closes soon after, long before nodemailer's own 10 s timeouts
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(closed).toHaveLength(1);
    sender.onApplicationShutdown();
  });
});
