import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OutgoingHttpHeaders } from 'node:http';
import { HttpException, HttpStatus, type Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/domain-errors.js';
import type { Principal } from '../domain/principal.js';
import { requestRef } from './request-ref.js';
import { StreamCaller, StreamKind, StreamLimits, StreamRefusal } from './stream-limits.js';

const KEEP_ALIVE_MS = 15_000;
/** How long a closing node waits for its streams' last bytes to go out (a stalled client gets no more). */
const CLOSE_WAIT_MS = 1_000;
/** What a refused client is told to wait: streams close at any moment, so soon is a fair guess. */
const RETRY_AFTER_SECONDS = 5;

/** What a stream sends, found once it may open (a failure here is still a JSON answer). */
export interface StreamSource {
  /** The first frame, sent with the headers. */
  first: string;
  /** Every frame after it, each a complete `…\n\n` text, until the client goes away (`signal`). */
  frames: (signal: AbortSignal) => AsyncIterable<string>;
  /** The frame that ends a stream whose source failed, if any. */
  lastFrame?: (error: unknown) => string;
}

/**
 * Who called, as the auth guard put it on the request: a stream is counted against the token
 * (tokens of the database by id; people by their id; the configured admin token and a proxy's
 * person by their name).
 */
function callerOf(request: FastifyRequest): StreamCaller {
  const principal = (request as { principal?: Principal }).principal;
  if (!principal) return { key: 'anonymous', name: 'anonymous' };
  const key = principal.tokenId
    ? `token:${principal.tokenId}`
    : principal.userId
      ? `user:${principal.userId}`
      : `${principal.kind}:${principal.name}`;
  return { key, name: principal.name };
}

/**
 * Server-sent event streams, written on the raw reply (a failure found before the first byte
 * is still a JSON answer): each frame as it comes, waiting for the socket to drain, a comment
 * every 15 s as keep-alive; a client's going away stops the frames' source, and `closeAll` (at
 * shutdown) ends every open stream. Each stream counts against the node's StreamLimits from
 * before its source is found until it ends; one beyond a cap is a 429 with Retry-After.
 */
export class EventStreams {
  /** Each open stream's stop, and its response's end. */
  private readonly open = new Map<AbortController, Promise<void>>();

  constructor(
    private readonly logger: Logger,
    private readonly limits: StreamLimits,
    private readonly kind: StreamKind,
  ) {}

  /**
   * Finds the stream's source with `prepare`, sends its first frame, then every frame of its
   * source. A failure of the source ends the stream, logged unless it is a domain error, with
   * the frame `lastFrame` makes of it, if any.
   */
  async serve(request: FastifyRequest, reply: FastifyReply, prepare: () => Promise<StreamSource>): Promise<void> {
    const close = this.limits.open(callerOf(request), this.kind);
    if (close instanceof StreamRefusal) {
      reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
      throw new HttpException(close.message, HttpStatus.TOO_MANY_REQUESTS);
    }
    try {
      await this.stream(request, reply, await prepare());
    } finally {
      close();
    }
  }

  private async stream(request: FastifyRequest, reply: FastifyReply, source: StreamSource): Promise<void> {
    const { first, frames, lastFrame } = source;
    reply.hijack();
    const response = reply.raw;
    const stop = new AbortController();
    this.open.set(stop, new Promise((resolve) => response.once('close', () => resolve())));
    response.once('close', () => stop.abort());
    request.raw.socket.setNoDelay(true);
    response.writeHead(200, {
      ...(reply.getHeaders() as OutgoingHttpHeaders), // the security headers
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-store, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.write(first);
    const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    try {
      for await (const frame of frames(stop.signal)) {
        if (!response.write(frame)) await once(response, 'drain', { signal: stop.signal });
      }
    } catch (error) {
      if (!stop.signal.aborted) {
        if (!(error instanceof DomainError)) {
          const msg = error instanceof Error ? (error.stack ?? error.message) : String(error);
          this.logger.error({ req: requestRef(request), msg });
        }
        if (lastFrame) response.write(lastFrame(error));
      }
    } finally {
      clearInterval(keepAlive);
      this.open.delete(stop);
      stop.abort();
      response.end();
    }
  }

  /**
   * Ends every open stream, and waits (a while) until their responses are done: the HTTP server
   * closes only idle connections at once, and would wait for a client to drop one still busy.
   */
  async closeAll(): Promise<void> {
    const ends = [...this.open].map(([stop, ended]) => {
      stop.abort();
      return ended;
    });
    await Promise.race([Promise.all(ends), sleep(CLOSE_WAIT_MS, undefined, { ref: false })]);
  }
}
