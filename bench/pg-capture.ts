/**
 * A TCP proxy in front of PostgreSQL that records the statements a client sends, with their
 * parameters: what Orbit really runs, read off the wire (protocol 3, no TLS), so that the bench
 * can EXPLAIN exactly those. Only the client's messages are parsed; bytes pass unchanged.
 */
import { createConnection, createServer, Server, Socket } from 'node:net';

export interface CapturedStatement {
  sql: string;
  /** Bound parameters as sent (text format); binary ones as `\x…` hex; null for NULL. */
  params: (string | null)[];
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

export class PgCapture {
  readonly statements: CapturedStatement[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on a free local port and forwards every connection to host:port. */
  static start(host: string, port: number): Promise<PgCapture> {
    return new Promise((resolve, reject) => {
      let capture: PgCapture | undefined;
      const server = createServer((client) => capture?.relay(client, host, port));
      server.once('error', reject).listen(0, '127.0.0.1', () => {
        const address = server.address();
        capture = new PgCapture(server, typeof address === 'object' && address ? address.port : 0);
        resolve(capture);
      });
    });
  }

  /** The URL with its host and port replaced by the proxy's. */
  urlFor(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.port);
    return proxied.toString();
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: Socket, host: string, port: number): void {
    const upstream = createConnection(port, host);
    const parser = new FrontendParser((statement) => this.statements.push(statement));
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    }
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', (chunk: Buffer) => parser.feed(chunk));
    client.pipe(upstream);
    upstream.pipe(client);
  }
}

/** Splits the client's byte stream into messages and records Query, and Parse + Bind pairs. */
class FrontendParser {
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;
  private readonly parsed = new Map<string, string>();

  constructor(private readonly record: (statement: CapturedStatement) => void) {}

  feed(chunk: Buffer): void {
    this.buffer = this.buffer.length > 0 ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      if (!this.started) {
        // the startup message (or an SSL/GSS request before it) has no type byte
        if (this.buffer.length < 8) return;
        const length = this.buffer.readInt32BE(0);
        if (this.buffer.length < length) return;
        const code = this.buffer.readInt32BE(4);
        if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) this.started = true;
        this.buffer = this.buffer.subarray(length);
        continue;
      }
      if (this.buffer.length < 5) return;
      const length = this.buffer.readInt32BE(1);
      if (this.buffer.length < 1 + length) return;
      this.handle(String.fromCharCode(this.buffer[0]!), this.buffer.subarray(5, 1 + length));
      this.buffer = this.buffer.subarray(1 + length);
    }
  }

  private handle(type: string, body: Buffer): void {
    if (type === 'Q') {
      this.record({ sql: cString(body, 0).text, params: [] });
    } else if (type === 'P') {
      const name = cString(body, 0);
      this.parsed.set(name.text, cString(body, name.next).text);
    } else if (type === 'B') {
      const portal = cString(body, 0);
      const statement = cString(body, portal.next);
      let at = statement.next;
      const formatCount = body.readInt16BE(at);
      at += 2;
      const formats: number[] = [];
      for (let i = 0; i < formatCount; i++, at += 2) formats.push(body.readInt16BE(at));
      const paramCount = body.readInt16BE(at);
      at += 2;
      const params: (string | null)[] = [];
      for (let i = 0; i < paramCount; i++) {
        const length = body.readInt32BE(at);
        at += 4;
        if (length < 0) {
          params.push(null);
          continue;
        }
        const value = body.subarray(at, at + length);
        at += length;
        const format = formatCount === 0 ? 0 : formatCount === 1 ? formats[0] : formats[i];
        params.push(format === 1 ? `\\x${value.toString('hex')}` : value.toString('utf8'));
      }
      this.record({ sql: this.parsed.get(statement.text) ?? '', params });
    }
  }
}

function cString(buffer: Buffer, start: number): { text: string; next: number } {
  const end = buffer.indexOf(0, start);
  return { text: buffer.toString('utf8', start, end), next: end + 1 };
}
