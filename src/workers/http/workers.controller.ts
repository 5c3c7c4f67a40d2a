import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { LAUNCHER_KINDS, type LauncherKind, OrbitConfig } from '../../config/orbit-config.js';
import { Clock } from '../../shared/domain/clock.js';
import { visibleTeams, type Principal } from '../../shared/domain/principal.js';
import { Caller, TeamFiltered } from '../../shared/http/access.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { ORBIT_VERSION } from '../../shared/orbit-version.js';
import { WorkerInfo, WorkerRegistry } from '../application/worker-registry.js';
import { HeldRun, WorkerRuns } from '../application/worker-runs.js';
import { HeldRunResponse } from './dto/held-run.response.js';

/** Workers that stopped beating are listed this long (as not alive) before they drop off. */
export const LISTED_FOR_MS = 24 * 3600 * 1000;

export class WorkerResponse {
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
  @ApiProperty({ example: 2, description: "Commands running at the last heartbeat, every team's" })
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
  @ApiProperty({
    enum: LAUNCHER_KINDS,
    example: 'native',
    description: 'What starts its commands: the native launcher built at install, or the Node spawner (ORBIT_LAUNCHER)',
  })
  launcher!: LauncherKind;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 0.42,
    description: "Its host's load average over the last minute, at its last heartbeat (0 on Windows)",
  })
  loadAverage!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 2, description: 'The CPUs its process may use' })
  cpus!: number | null;
  @ApiProperty({
    type: [HeldRunResponse],
    description:
      "The executions it runs now (RUNNING, held by it), oldest first, each with its job: of the caller's teams only",
  })
  executions!: HeldRunResponse[];
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
    private readonly runs: WorkerRuns,
    private readonly clock: Clock,
    private readonly config: OrbitConfig,
  ) {}

  @Get()
  @TeamFiltered()
  @ApiOperation({
    summary: 'Worker processes',
    description:
      'Running workers, and for a day those that stopped heartbeating (alive: false), each with the executions it ' +
      'runs now. A worker that stopped cleanly is gone. Workers are shared by every team, so every caller sees ' +
      "them all; the executions listed are those of the caller's teams' jobs only.",
  })
  @ApiOkResponse({ type: WorkerListResponse })
  @ApiErrors()
  async list(@Caller() caller: Principal): Promise<WorkerListResponse> {
    const now = this.clock.now().getTime();
    const workers = await this.registry.recent(new Date(now - LISTED_FOR_MS));
    const runs = await this.runs.runningOn(
      workers.map((w) => w.id),
      visibleTeams(caller) ?? undefined,
    );
    return { items: workers.map((w) => workerResponse(w, runs.get(w.id) ?? [], now, this.config.leaseSeconds)) };
  }
}

/** A worker as GET /workers shows it at `now`, alive while its heartbeat is within `leaseSeconds`. */
export function workerResponse(w: WorkerInfo, runs: HeldRun[], now: number, leaseSeconds: number): WorkerResponse {
  return {
    ...w,
    labels: { ...w.labels },
    startedAt: w.startedAt.toISOString(),
    lastHeartbeatAt: w.lastHeartbeatAt.toISOString(),
    alive: w.lastHeartbeatAt.getTime() > now - leaseSeconds * 1000,
    executions: runs.map((run) => ({ ...run, startedAt: run.startedAt.toISOString() })),
  };
}
