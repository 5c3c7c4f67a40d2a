import { once } from 'node:events';
import type { OutgoingHttpHeaders } from 'node:http';
import type { Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/domain-errors.js';
import { requestRef } from './request-ref.js';

const KEEP_ALIVE_MS = 15_000;

/**
 * Server-sent event streams, written on the raw reply (a failure found before the first byte
 * is still a JSON answer): each frame as it comes, waiting for the socket to drain, a comment
 * every 15 s as keep-alive; a client's going away stops the frames' source, and `closeAll` (at
 * shutdown) ends every open stream.
 */
export class EventStreams {
  private readonly open = new Set<AbortController>();

  constructor(private readonly logger: Logger) {}

  /**
   * Sends `first`, then every frame of `frames` (each a complete `…\n\n` text). A failure of the
   * source ends the stream, logged unless it is a domain error, with the frame `lastFrame` makes
   * of it, if any.
   */
  async serve(
    request: FastifyRequest,
    reply: FastifyReply,
    first: string,
    frames: (signal: AbortSignal) => AsyncIterable<string>,
    lastFrame?: (error: unknown) => string,
  ): Promise<void> {
    reply.hijack();
    const response = reply.raw;
    const stop = new AbortController();
    this.open.add(stop);
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

  closeAll(): void {
    for (const stream of this.open) stream.abort();
  }
}
