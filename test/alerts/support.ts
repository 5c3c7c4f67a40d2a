import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { Channel } from '../../src/alerts/domain/channel.js';
import type { ChannelSender } from '../../src/alerts/infrastructure/channel-sender.js';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A status, or a status and the body that goes with it (`ok` by default). */
export type Answer = number | { status: number; body: string };

/** An HTTP receiver inside the test: records every request; `answer` picks each one's status (and body). */
export async function startReceiver(answer: (request: Received, seen: Received[]) => Answer = () => 200) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      received.push(request);
      const answered = answer(
        request,
        received.filter((r) => r.path === request.path),
      );
      const { status, body } = typeof answered === 'number' ? { status: answered, body: 'ok' } : answered;
      res.writeHead(status, status >= 300 && status < 400 ? { location: 'http://127.0.0.1:1/' } : {}).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    received,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    at: (path: string) => received.filter((r) => r.path === path),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A login the SMTP server took, and whether the connection was encrypted by then. */
export interface SmtpLogin {
  username: string;
  password: string;
  secure: boolean;
}

/**
 * An SMTP server inside the test that accepts every message and parses it, and any login,
 * also in clear (so that a client that sends credentials without TLS is seen doing it).
 * `startTls`: it offers STARTTLS, with smtp-server's own self-signed certificate.
 */
export async function startSmtp(options: { startTls?: boolean } = {}) {
  const mails: ParsedMail[] = [];
  const logins: SmtpLogin[] = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: options.startTls ? [] : ['STARTTLS'],
    logger: false, // and no warning that the test's certificate is the built-in one
    onAuth(auth, session, callback) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '', secure: session.secure });
      callback(null, { user: auth.username });
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          mails.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    mails,
    logins,
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A text of a Slack message, and whether Slack reads markup in it (mrkdwn, the message's `text`). */
export interface SlackText {
  markup: boolean;
  text: string;
  /** The type of the block element that holds it (`rich_text_preformatted`, …), or null. */
  within: string | null;
}

/** Every text of a Slack message: plain_text objects and rich-text `text` elements are shown as written. */
export function slackTexts(message: unknown, within: string | null = null): SlackText[] {
  if (Array.isArray(message)) return message.flatMap((item) => slackTexts(item, within));
  if (message === null || typeof message !== 'object') return [];
  const object = message as Record<string, unknown>;
  const type = typeof object.type === 'string' ? object.type : null;
  const own: SlackText[] =
    typeof object.text === 'string'
      ? [{ markup: type !== 'plain_text' && type !== 'text', text: object.text, within }]
      : [];
  return [
    ...own,
    ...Object.entries(object)
      .filter(([key]) => key !== 'text' || typeof object.text !== 'string')
      .flatMap(([, value]) => slackTexts(value, type ?? within)),
  ];
}

/** Slack markup that does nothing: no control character but in the three escapes. */
export function expectInert(texts: readonly SlackText[]): void {
  for (const { text } of texts.filter((t) => t.markup)) {
    expect(text).not.toMatch(/[<>]/);
    expect(text.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
  }
}

/** The `test` event's delivery to `channel`, as the delivery loop hands it to the sender. */
export function testDelivery(channel: Channel): Parameters<ChannelSender['send']>[1] {
  return {
    id: 'd-1',
    channelId: channel.id,
    event: 'test',
    payload: {
      event: 'test',
      timestamp: '',
      job: null,
      slot: null,
      run: null,
      links: { dashboard: '', job: null, run: null },
    },
    attempt: 1,
    giveUpAt: new Date(Date.now() + 60_000),
  };
}
