import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { MinRole } from '../../auth/http/auth.decorators.js';
import { NotFoundError } from '../../shared/domain/domain-errors.js';
import { Audited } from '../../shared/http/audited.decorator.js';
import { OrbitConfig } from '../../config/orbit-config.js';
import { Clock } from '../../shared/domain/clock.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { ORBIT_VERSION } from '../../shared/orbit-version.js';
import { WorkerInfo, WorkerRegistry } from '../application/worker-registry.js';

/** Workers that stopped beating are listed this long (as not alive) before they drop off. */
const LISTED_FOR_MS = 24 * 3600 * 1000;

class WorkerResponse {
  @ApiProperty({ example: 'host-a:4242:1f2e3d' })
  id!: string;
  @ApiProperty({ example: 'host-a' })
  host!: string;
  @ApiProperty({ example: 4242 })
  pid!: number;
  @ApiProperty({ example: ORBIT_VERSION })
  version!: string;
  @ApiProperty({ example: 4 })
  concurrency!: number;
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z' })
  startedAt!: string;
  @ApiProperty({ example: '2026-11-30T10:05:00.000Z' })
  lastHeartbeatAt!: string;
  @ApiProperty({ example: 2, description: 'Commands running at the last heartbeat' })
  running!: number;
  @ApiProperty({ example: true, description: 'false once it missed its heartbeats for a whole lease' })
  alive!: boolean;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { host: 'host-a', region: 'eu' },
    description: 'ORBIT_WORKER_LABELS, and host=<hostname> unless they name a host',
  })
  labels!: Record<string, string>;
  @ApiProperty({ example: false, description: 'Told to stop claiming (drain): it finishes what it runs' })
  draining!: boolean;
}

class WorkerListResponse {
  @ApiProperty({ type: [WorkerResponse] })
  items!: WorkerResponse[];
}

@ApiTags('workers')
@ApiBearerAuth()
@Controller('workers')
export class WorkersController {
  constructor(
    private readonly registry: WorkerRegistry,
    private readonly clock: Clock,
    private readonly config: OrbitConfig,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Worker processes',
    description:
      'Running workers, and for a day those that stopped heartbeating (alive: false). A worker that stopped cleanly is gone.',
  })
  @ApiOkResponse({ type: WorkerListResponse })
  @ApiErrors()
  async list(): Promise<WorkerListResponse> {
    const now = this.clock.now().getTime();
    const workers = await this.registry.recent(new Date(now - LISTED_FOR_MS));
    return { items: workers.map((w) => this.response(w, now)) };
  }

  @Post(':id/drain')
  @HttpCode(200)
  @MinRole('operator')
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
  @MinRole('operator')
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
    return this.response(worker, now);
  }

  private response(w: WorkerInfo, now: number): WorkerResponse {
    return {
      ...w,
      labels: { ...w.labels },
      startedAt: w.startedAt.toISOString(),
      lastHeartbeatAt: w.lastHeartbeatAt.toISOString(),
      alive: w.lastHeartbeatAt.getTime() > now - this.config.leaseSeconds * 1000,
    };
  }
}
