import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import pino, { type Logger as PinoRoot } from 'pino';
import { INT32 } from '../../shared/domain/int32.js';

export const ROOT_LOGGER = Symbol('orbit:root-logger');

/** Health checks and scrapes are not worth a line. */
const UNLOGGED = /^\/(health|metrics)/;

/** `id` as pino-http numbered requests: 1, 2, 3, … per process (or one set before). */
type LoggedRequest = Omit<IncomingMessage, 'id'> & { id?: unknown };

/**
 * One line per request once it is answered: `debug` normally, `error` for a 5xx, in the shape
 * pino-http wrote (`req` with id, method, url and redacted headers, `res`, `responseTime`).
 * Unlike pino-http, nothing is serialized unless the line is actually written: at the default
 * level a request costs an id, a timestamp and one listener.
 */
@Injectable()
export class RequestLog {
  private readonly log: PinoRoot;
  private lastId = 0;

  constructor(@Inject(ROOT_LOGGER) root: PinoRoot) {
    this.log = root.child({}, { serializers: { req: pino.stdSerializers.req, res: pino.stdSerializers.res } });
  }

  /**
   * A Fastify `onRequest` hook, added before the routes: it works on the raw Node request and
   * response, so the line is the same whatever answers (a handler, a hijacked stream, an error).
   */
  readonly onRequest = (request: { raw: LoggedRequest }, reply: { raw: ServerResponse }, done: () => void): void => {
    const req = request.raw;
    req.id ??= this.lastId = (this.lastId + 1) & INT32.max;
    if (!UNLOGGED.test(req.url ?? '')) {
      const started = Date.now();
      const res = reply.raw;
      // a ServerResponse always emits `close` last, whether it was answered or the client went away
      res.on('close', () => this.written(req, res, started));
    }
    done();
  };

  private written(req: LoggedRequest, res: ServerResponse, started: number): void {
    const error = res.statusCode >= 500;
    const level = error ? 'error' : 'debug';
    if (!this.log.isLevelEnabled(level)) return;
    const responseTime = Date.now() - started;
    const message = error
      ? 'request errored'
      : !req.readableAborted && res.writableEnded
        ? 'request completed'
        : 'request aborted';
    this.log[level]({ req, res, responseTime }, message);
  }
}
