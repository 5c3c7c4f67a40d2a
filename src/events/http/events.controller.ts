import { BeforeApplicationShutdown, Controller, Get, Logger, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { OrbitConfig } from '../../config/orbit-config.js';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { visibleTeams, type Principal } from '../../shared/domain/principal.js';
import { Caller, TeamFiltered } from '../../shared/http/access.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { EventStreams } from '../../shared/http/event-streams.js';
import { StreamLimits } from '../../shared/http/stream-limits.js';
import { EventLog } from '../application/event-log.js';
import { EventTeams } from '../application/event-teams.js';
import { EventWakeups } from '../application/event-wakeups.js';
import { followEvents } from '../application/follow-events.js';
import { OrbitEvent } from '../domain/orbit-event.js';
import { EventPageResponse, EventResponse } from './dto/event.response.js';
import { AfterQuery, EVENT_PAGE, ListEventsQuery, MAX_AFTER } from './dto/list-events.query.js';

const STREAM_DESCRIPTION = [
  'Server-sent events: every event after the cursor, in order, then each new one as it is written',
  '(woken by NOTIFY: at once, or within about 150 ms under load). Each message is `id: <seq>` and `data: <the event as JSON>`',
  '(the schema of GET /events items). The cursor is the `Last-Event-ID` header (sent by EventSource when',
  'it reconnects), else `after`, else the newest event at connection (only new events follow; while a transaction',
  'that writes events stays open past a second, the cursor is before the first gap it may fill, so events from',
  'just before the connection may come first). Only the events',
  "of the jobs of the caller's teams are sent. The stream",
  'first sends `id:` with its starting cursor, so a client that reconnects before any event still resumes there.',
  'A client that reconnects with the id of the last event it got misses none and sees none twice.',
  'Lines starting with `:` are comments (keep-alives every 15 s). A token holds at most ORBIT_STREAMS_PER_CALLER',
  '(20) streams open on a node, and a node at most ORBIT_STREAMS_PER_NODE (200); one more is a 429 with',
  'Retry-After. Try it with',
  '`curl -N -H "Authorization: Bearer <token>" localhost:3000/events/stream`.',
].join(' ');

/** Each event in the text/event-stream format, its seq as the id. */
async function* frames(events: AsyncIterable<OrbitEvent>): AsyncIterable<string> {
  for await (const event of events) yield `id: ${event.seq}\ndata: ${JSON.stringify(EventResponse.from(event))}\n\n`;
}

/** A Last-Event-ID header is a seq the stream sent, or nothing. */
function lastEventId(request: FastifyRequest): number | undefined {
  const header = request.headers['last-event-id'];
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(',') : header;
  const seq = /^\d{1,16}$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isSafeInteger(seq) || seq > MAX_AFTER) {
    throw new InvalidArgumentError(
      'Last-Event-ID must be the id of an event (a non-negative integer)',
      'Last-Event-ID',
    );
  }
  return seq;
}

@ApiTags('events')
@ApiBearerAuth()
@Controller('events')
export class EventsController implements BeforeApplicationShutdown {
  /** A closing node ends them, or the HTTP server would wait for them. */
  private readonly streams: EventStreams;

  constructor(
    private readonly log: EventLog,
    private readonly wakeups: EventWakeups,
    private readonly teams: EventTeams,
    private readonly config: OrbitConfig,
    limits: StreamLimits,
  ) {
    this.streams = new EventStreams(new Logger(EventsController.name), limits, 'events');
  }

  @Get()
  @TeamFiltered()
  @ApiOperation({
    summary: 'Page through the events, oldest first',
    description:
      "Every change of an execution's status and every change of a job, of the jobs of the caller's teams, in the " +
      'order of `seq`. Pass `nextAfter` as `after` for the next page; an empty page is the end for now.',
  })
  @ApiOkResponse({ type: EventPageResponse })
  @ApiErrors(400)
  async list(@Query() query: ListEventsQuery, @Caller() caller: Principal): Promise<EventPageResponse> {
    const after = query.after ?? 0;
    const teams = visibleTeams(caller) ?? undefined;
    const events = await this.log.readAfter(after, query.limit ?? EVENT_PAGE.default, teams);
    return { items: events.map(EventResponse.from), nextAfter: events[events.length - 1]?.seq ?? after };
  }

  /**
   * A raw response rather than @Sse: bad input must be a JSON 400 before any header is sent,
   * and the reply is hijacked so that Fastify leaves the raw response to this handler.
   */
  @Get('stream')
  @TeamFiltered()
  @ApiOperation({ summary: 'Follow the events, as server-sent events', description: STREAM_DESCRIPTION })
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description: 'The id of the last event received: the stream resumes after it (wins over `after`)',
  })
  @ApiOkResponse({
    description: 'An event stream (text/event-stream) that stays open',
    content: {
      'text/event-stream': {
        schema: { type: 'string' },
        example:
          'id: 4210\n\nid: 4211\ndata: {"seq":4211,"type":"execution.failed","at":"2026-11-30T10:00:01.250Z",' +
          '"jobId":"0b7d4c1e-3f4a-4f43-9a53-6a1f2f1f5a10","executionId":"5c3b0c55-9f8e-4a51-8f0e-2b1f7f7e2a11",' +
          '"from":"RUNNING","to":"FAILED","attempt":1,"trigger":"SCHEDULE","exitCode":1,' +
          '"errorMessage":"Command exited with code 1","workerId":"host-a:4242:1f2e","retryQueued":true}\n\n',
      },
    },
  })
  @ApiErrors(400)
  async stream(
    @Query() query: AfterQuery,
    @Caller() caller: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const teams = visibleTeams(caller);
    const keep = teams ? (events: OrbitEvent[]) => this.teams.keep(events, teams) : undefined;
    await this.streams.serve(request, reply, async () => {
      const start = lastEventId(request) ?? query.after ?? (await this.log.latestSeq());
      return {
        first: `: following events\nid: ${start}\n\n`,
        frames: (signal) =>
          frames(
            followEvents(this.log, this.wakeups, start, {
              batch: EVENT_PAGE.max,
              pollMs: this.config.pollIntervalMs,
              signal,
              keep,
            }),
          ),
      };
    });
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.streams.closeAll();
  }
}
