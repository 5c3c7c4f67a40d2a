import {
  BeforeApplicationShutdown,
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Logger,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { actorName, teamsToShow, type Principal } from '../../shared/domain/principal.js';
import { Caller, MinRole, OwnedBy, TeamFiltered } from '../../shared/http/access.decorators.js';
import { Clock } from '../../shared/domain/clock.js';
import { DomainError } from '../../shared/domain/domain-errors.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { Audited } from '../../shared/http/audited.decorator.js';
import { EmptyBodyDto } from '../../shared/http/empty-body.dto.js';
import { EventStreams } from '../../shared/http/event-streams.js';
import { StreamLimits } from '../../shared/http/stream-limits.js';
import { Cancellations } from '../application/cancellations.js';
import { ExecutionsService } from '../application/executions.service.js';
import { OutputPolls } from '../application/output-polls.js';
import { followOutput, OutputEvent } from '../application/output-stream.js';
import { ExecutionOutputResponse, ExecutionPageResponse, ExecutionResponse } from './dto/execution.response.js';
import { ListExecutionsQuery } from './dto/list-executions.query.js';
import { BackfillDto, BackfillResponse } from './dto/backfill.dto.js';
import { CancellationResponse } from './dto/cancellation.response.js';
import { RunRequestDto } from './dto/run-request.dto.js';
import { RUN_REQUEST_LIMITS } from '../domain/run-requests.js';
import { FailDto, SucceedDto } from './dto/transition.dto.js';

/** What the runner actions (start, succeed, fail) say beside their summary. */
const RUNNER_ACTION =
  'A run a worker is executing is refused (409): only its worker reports how it ends; cancel stops it. ' +
  'Recorded in the audit trail.';

/** Reads answer JSON that PostgreSQL wrote (ExecutionReadModel); a string is sent as it is. */
const JSON_CONTENT = 'application/json; charset=utf-8';

const OUTPUT_STREAM_DESCRIPTION = [
  'Server-sent events that follow the stored output of the execution while it is queued and runs,',
  'and end when it is final. Each event is one of:',
  '`stdout` / `stderr` with the text printed since the previous event of that stream, as a JSON string',
  '(`data: "line 1\\n"`);',
  '`truncated` (`data: {"stream":"stdout"}`) when output was dropped (only the last ORBIT_OUTPUT_LIMIT_KB',
  'KiB of each stream are kept) before it could be sent: the next event of that stream is its whole stored tail;',
  '`end` (`data: {"status":"SUCCEEDED","exitCode":0}`), the last event, once the execution is final and all',
  'its stored output was sent; `error` (`data: {"message": "..."}`) if reading failed, after which the stream ends.',
  'An already finished execution gets its whole output and `end` at once.',
  'Lines starting with `:` are comments (keep-alives). Clients following one execution share one read of it.',
  'A token holds at most ORBIT_STREAMS_PER_CALLER (20) streams open on a node, and a node at most',
  'ORBIT_STREAMS_PER_NODE (200); one more is a 429 with Retry-After. Try it with',
  '`curl -N -H "Authorization: Bearer <token>" localhost:3000/executions/<id>/output/stream`.',
].join(' ');

/** One event in the text/event-stream format; JSON keeps every character of the output on one data line. */
async function* frames(events: AsyncIterable<OutputEvent>): AsyncIterable<string> {
  for await (const event of events) yield serverSentEvent(event);
}

function serverSentEvent(event: OutputEvent): string {
  const data =
    event.type === 'end'
      ? { status: event.status, exitCode: event.exitCode }
      : event.type === 'truncated'
        ? { stream: event.stream }
        : event.text;
  return `event: ${event.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

@ApiTags('executions')
@ApiBearerAuth()
@Controller()
export class ExecutionsController implements BeforeApplicationShutdown {
  /** A closing node ends them, or the HTTP server would wait for them. */
  private readonly streams: EventStreams;

  constructor(
    private readonly executions: ExecutionsService,
    private readonly cancellations: Cancellations,
    private readonly polls: OutputPolls,
    private readonly clock: Clock,
    limits: StreamLimits,
  ) {
    this.streams = new EventStreams(new Logger(ExecutionsController.name), limits, 'output');
  }

  @Post('jobs/:id/executions')
  @OwnedBy('job')
  @MinRole('operator')
  @Audited('execution.triggered')
  @ApiOperation({
    summary: 'Queue a run of a job, now or at a given instant',
    description:
      "A manual run, allowed also while the job is disabled. Copies the job's command, maxRetries and timeoutSeconds. " +
      'With `parameters`, the values of its declared parameters (the command sees ORBIT_PARAM_<NAME>); with `runAt`, due then.',
  })
  @ApiCreatedResponse({ type: ExecutionResponse })
  @ApiErrors(400, 404)
  async create(@Param('id', ParseUUIDPipe) jobId: string, @Body() body: RunRequestDto): Promise<ExecutionResponse> {
    const runAt = body.runAt === undefined ? undefined : new Date(body.runAt);
    return ExecutionResponse.from(await this.executions.create(jobId, { parameters: body.parameters, runAt }));
  }

  @Post('jobs/:id/backfill')
  @OwnedBy('job')
  @MinRole('operator')
  @Audited('execution.backfilled')
  @ApiOperation({
    summary: "Queue one run per slot of the job's schedule in a past window",
    description:
      'Runs with trigger BACKFILL and scheduledFor the slot, due now, with the parameter defaults; a slot that has a run ' +
      `already is skipped. At most ${RUN_REQUEST_LIMITS.backfillMaxSlots} slots. Refused (409) while a run of a FORBID or REPLACE job is active.`,
  })
  @ApiCreatedResponse({ type: BackfillResponse })
  @ApiErrors(400, 404, 409)
  async backfill(@Param('id', ParseUUIDPipe) jobId: string, @Body() body: BackfillDto): Promise<BackfillResponse> {
    return this.executions.backfill(jobId, new Date(body.from), new Date(body.to));
  }

  @Get('executions')
  @TeamFiltered()
  @ApiOperation({ summary: "List the executions of the caller's teams' jobs, newest first" })
  @ApiOkResponse({ type: ExecutionPageResponse })
  @ApiErrors(400)
  @Header('Content-Type', JSON_CONTENT)
  async list(@Query() query: ListExecutionsQuery, @Caller() caller: Principal): Promise<string> {
    const filter = { ...query.toFilter(), teams: teamsToShow(caller, query.team) };
    const page = await this.executions.listJson(filter, query.toPageRequest());
    return `{"items":[${page.items.join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)}}`;
  }

  @Get('executions/:id')
  @OwnedBy('execution')
  @ApiOperation({ summary: 'Read an execution' })
  @ApiOkResponse({ type: ExecutionResponse })
  @ApiErrors(400, 404)
  @Header('Content-Type', JSON_CONTENT)
  async get(@Param('id', ParseUUIDPipe) id: string): Promise<string> {
    return this.executions.getJson(id);
  }

  @Get('executions/:id/cancellation')
  @OwnedBy('execution')
  @ApiOperation({
    summary: 'Who cancelled a cancelled run, and when',
    description:
      'As the run keeps it (its cancelledBy), with the run that replaced it when the scheduler cancelled it; for a ' +
      'run cancelled before runs kept it, from the audit trail, which records who called cancel (or deleted the ' +
      'job of a queued run). A run that Orbit cancelled itself (the earlier run of a REPLACE job, when the next ' +
      'slot fires) names no one. ' +
      '404 for a run that was not cancelled.',
  })
  @ApiOkResponse({ type: CancellationResponse })
  @ApiErrors(400, 404)
  async cancellation(@Param('id', ParseUUIDPipe) id: string): Promise<CancellationResponse> {
    return CancellationResponse.from(await this.cancellations.of(id));
  }

  @Get('executions/:id/output')
  @OwnedBy('execution')
  @ApiOperation({
    summary: 'What the command printed',
    description:
      'The last ORBIT_OUTPUT_LIMIT_KB (default 64) KiB of stdout and of stderr; updated about every second while it runs.',
  })
  @ApiOkResponse({ type: ExecutionOutputResponse })
  @ApiErrors(400, 404)
  async output(@Param('id', ParseUUIDPipe) id: string): Promise<ExecutionOutputResponse> {
    return this.executions.output(id);
  }

  /**
   * A raw response rather than @Sse: an unknown id must be a JSON 404, and with a global
   * interceptor @Sse commits its 200 headers before an async handler can find that out. Once
   * the id is known the reply is hijacked: Fastify leaves the raw response to this handler.
   */
  @Get('executions/:id/output/stream')
  @OwnedBy('execution')
  @ApiOperation({
    summary: 'Follow what the command prints, as server-sent events',
    description: OUTPUT_STREAM_DESCRIPTION,
  })
  @ApiOkResponse({
    description: 'An event stream (text/event-stream) that ends after its `end` event',
    content: {
      'text/event-stream': {
        schema: { type: 'string' },
        example:
          'event: stdout\ndata: "line 1\\n"\n\nevent: stdout\ndata: "line 2\\n"\n\n' +
          'event: end\ndata: {"status":"SUCCEEDED","exitCode":0}\n\n',
      },
    },
  })
  @ApiErrors(400, 404)
  async stream(
    @Param('id', ParseUUIDPipe) id: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.streams.serve(request, reply, async () => {
      await this.executions.get(id); // 404 as JSON, before anything is streamed
      return {
        first: ': following the output\n\n',
        frames: (signal) =>
          frames(
            followOutput(this.polls.follow(id, signal), { pollMs: this.polls.pollMs, now: () => this.clock.now() }),
          ),
        lastFrame: (error) => {
          const message = error instanceof DomainError ? error.message : 'Internal server error';
          return `event: error\ndata: ${JSON.stringify({ message })}\n\n`;
        },
      };
    });
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.streams.closeAll();
  }

  @Post('executions/:id/start')
  @OwnedBy('execution')
  @MinRole('operator')
  @Audited('execution.started')
  @HttpCode(200)
  @ApiOperation({
    summary: 'QUEUED → RUNNING (for an outside runner; its timeout still holds)',
    description: RUNNER_ACTION,
  })
  @ApiOkResponse({ type: ExecutionResponse })
  @ApiErrors(400, 404, 409)
  async start(@Param('id', ParseUUIDPipe) id: string, @Body() _body: EmptyBodyDto): Promise<ExecutionResponse> {
    return ExecutionResponse.from(await this.executions.start(id));
  }

  @Post('executions/:id/succeed')
  @OwnedBy('execution')
  @MinRole('operator')
  @Audited('execution.succeeded')
  @HttpCode(200)
  @ApiOperation({
    summary: 'RUNNING → SUCCEEDED with an exit code (for an outside runner)',
    description: RUNNER_ACTION,
  })
  @ApiOkResponse({ type: ExecutionResponse })
  @ApiErrors(400, 404, 409)
  async succeed(@Param('id', ParseUUIDPipe) id: string, @Body() body: SucceedDto): Promise<ExecutionResponse> {
    return ExecutionResponse.from(await this.executions.succeed(id, body.exitCode));
  }

  @Post('executions/:id/fail')
  @OwnedBy('execution')
  @MinRole('operator')
  @Audited('execution.failed')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'RUNNING → FAILED with an exit code and a message; queues a retry when attempts are left (for an outside runner)',
    description: RUNNER_ACTION,
  })
  @ApiOkResponse({ type: ExecutionResponse })
  @ApiErrors(400, 404, 409)
  async fail(@Param('id', ParseUUIDPipe) id: string, @Body() body: FailDto): Promise<ExecutionResponse> {
    return ExecutionResponse.from(await this.executions.fail(id, body.exitCode, body.errorMessage as string));
  }

  @Post('executions/:id/cancel')
  @OwnedBy('execution')
  @MinRole('operator')
  @Audited('execution.cancelled')
  @HttpCode(200)
  @ApiOperation({ summary: 'QUEUED or RUNNING → CANCELLED; a running command is stopped by its worker' })
  @ApiOkResponse({ type: ExecutionResponse })
  @ApiErrors(400, 404, 409)
  async cancel(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() _body: EmptyBodyDto,
    @Caller() caller: Principal,
  ): Promise<ExecutionResponse> {
    return ExecutionResponse.from(await this.executions.cancel(id, actorName(caller)));
  }
}
