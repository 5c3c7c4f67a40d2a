import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

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

/** An SMTP server inside the test that accepts every message and parses it. */
export async function startSmtp() {
  const mails: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
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
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
