import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Audited } from '../../audit/http/audited.decorator.js';
import { MinRole } from '../../auth/http/auth.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { EmptyBodyDto } from '../../shared/http/empty-body.dto.js';
import { ExecutionsService } from '../application/executions.service.js';
import { ExecutionOutputResponse, ExecutionPageResponse, ExecutionResponse } from './dto/execution.response.js';
import { ListExecutionsQuery } from './dto/list-executions.query.js';
import { FailDto, SucceedDto } from './dto/transition.dto.js';

@ApiTags('executions')
@ApiBearerAuth()
@Controller()
export class ExecutionsController {
  constructor(private readonly executions: ExecutionsService) {}

  @Post('jobs/:id/executions')
  @MinRole('operator')
  @Audited('execution.triggered')
  @ApiOperation({
    summary: 'Queue a run of a job now',
    description:
      "A manual run, allowed also while the job is disabled. Copies the job's command, maxRetries and timeoutSeconds.",
  })
  @ApiCreatedResponse({ type: ExecutionResponse })
  @ApiErrors(400, 404)
  async create(@Param('id', ParseUUIDPipe) jobId: string, @Body() _body: EmptyBodyDto): Promise<ExecutionResponse> {
    return ExecutionResponse.from(await this.executions.create(jobId));
  }

  @Get('executions')
  @ApiOperation({ summary: 'List executions, newest first' })
  @ApiOkResponse({ type: ExecutionPageResponse })
  @ApiErrors(400)
  async list(@Query() query: ListExecutionsQuery): Promise<ExecutionPageResponse> {
    const page = await this.executions.list({ jobId: query.jobId, status: query.status }, query.toPageRequest());
    return { items: page.items.map(ExecutionResponse.from), nextCursor: page.nextCursor };
  }

  @Get('executions/:id')
  @ApiOperation({ summary: 'Read an execution' })
  @ApiOkResponse({ type: ExecutionResponse })
  @ApiErrors(400, 404)
  async get(@Param('id', ParseUUIDPipe) id: string): Promise<ExecutionResponse> {
    return ExecutionResponse.from(await this.executions.get(id));
  }

  @Get('executions/:id/output')
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

  @Post('executions/:id/start')
  @MinRole('operator')
  @HttpCode(200)
  @ApiOperation({ summary: 'QUEUED → RUNNING (for an outside runner; its timeout still holds)' })
  @ApiOkResponse({ type: ExecutionResponse })
  @ApiErrors(400, 404, 409)
  async start(@Param('id', ParseUUIDPipe) id: string, @Body() _body: EmptyBodyDto): Promise<ExecutionResponse> {
    return ExecutionResponse.from(await this.executions.start(id));
  }

  @Post('executions/:id/succeed')
  @MinRole('operator')
  @HttpCode(200)
  @ApiOperation({ summary: 'RUNNING → SUCCEEDED with an exit code' })
  @ApiOkResponse({ type: ExecutionResponse })
  @ApiErrors(400, 404, 409)
  async succeed(@Param('id', ParseUUIDPipe) id: string, @Body() body: SucceedDto): Promise<ExecutionResponse> {
    return ExecutionResponse.from(await this.executions.succeed(id, body.exitCode));
  }

  @Post('executions/:id/fail')
  @MinRole('operator')
  @HttpCode(200)
  @ApiOperation({ summary: 'RUNNING → FAILED with an exit code and a message; queues a retry when attempts are left' })
  @ApiOkResponse({ type: ExecutionResponse })
  @ApiErrors(400, 404, 409)
  async fail(@Param('id', ParseUUIDPipe) id: string, @Body() body: FailDto): Promise<ExecutionResponse> {
    return ExecutionResponse.from(await this.executions.fail(id, body.exitCode, body.errorMessage as string));
  }

  @Post('executions/:id/cancel')
  @MinRole('operator')
  @Audited('execution.cancelled')
  @HttpCode(200)
  @ApiOperation({ summary: 'QUEUED or RUNNING → CANCELLED; a running command is stopped by its worker' })
  @ApiOkResponse({ type: ExecutionResponse })
  @ApiErrors(400, 404, 409)
  async cancel(@Param('id', ParseUUIDPipe) id: string, @Body() _body: EmptyBodyDto): Promise<ExecutionResponse> {
    return ExecutionResponse.from(await this.executions.cancel(id));
  }
}
