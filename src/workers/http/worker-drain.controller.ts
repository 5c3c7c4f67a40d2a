import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MinRole, OrganisationWide } from '../../shared/http/access.decorators.js';
import { OrbitConfig } from '../../config/orbit-config.js';
import { Clock } from '../../shared/domain/clock.js';
import { NotFoundError } from '../../shared/domain/domain-errors.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { Audited } from '../../shared/http/audited.decorator.js';
import { WorkerRegistry } from '../application/worker-registry.js';
import { WorkerRuns } from '../application/worker-runs.js';
import { LISTED_FOR_MS, WorkerResponse, workerResponse } from './workers.controller.js';

/** Drain and resume (operator): what a worker claims, set in the registry it heartbeats to. */
@ApiTags('workers')
@ApiBearerAuth()
@MinRole('operator')
@OrganisationWide()
@Controller('workers')
export class WorkerDrainController {
  constructor(
    private readonly registry: WorkerRegistry,
    private readonly runs: WorkerRuns,
    private readonly clock: Clock,
    private readonly config: OrbitConfig,
  ) {}

  @Post(':id/drain')
  @HttpCode(200)
  @Audited('worker.drained')
  @ApiOperation({
    summary: 'Stop a worker claiming (operator)',
    description: 'It finishes what it runs and claims nothing new until resumed. Any node may drain any worker.',
  })
  @ApiOkResponse({ type: WorkerResponse })
  @ApiErrors(404)
  drain(@Param('id') id: string): Promise<WorkerResponse> {
    return this.setDraining(id, true);
  }

  @Post(':id/resume')
  @HttpCode(200)
  @Audited('worker.resumed')
  @ApiOperation({ summary: 'Let a drained worker claim again (operator)' })
  @ApiOkResponse({ type: WorkerResponse })
  @ApiErrors(404)
  resume(@Param('id') id: string): Promise<WorkerResponse> {
    return this.setDraining(id, false);
  }

  private async setDraining(id: string, draining: boolean): Promise<WorkerResponse> {
    const now = this.clock.now().getTime();
    if (!(await this.registry.setDraining(id, draining))) throw new NotFoundError(`Worker ${id} not found`);
    const worker = (await this.registry.recent(new Date(now - LISTED_FOR_MS))).find((w) => w.id === id);
    if (!worker) throw new NotFoundError(`Worker ${id} not found`);
    const runs = await this.runs.runningOn([id]);
    return workerResponse(worker, runs.get(id) ?? [], now, this.config.leaseSeconds);
  }
}
