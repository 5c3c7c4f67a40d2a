import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public, Unlimited } from '../../shared/http/access.decorators.js';
import { OrbitConfig } from '../../config/orbit-config.js';
import { Database } from '../../shared/infrastructure/database.js';
import { Heartbeats } from '../application/heartbeats.js';
import { HealthEndpoint } from './health-check.docs.js';

/** Liveness and readiness, without a token and without a rate limit, with the usual 200 / 503. */
@ApiTags('health')
@Public()
@Unlimited()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly db: Database,
    private readonly config: OrbitConfig,
    private readonly heartbeats: Heartbeats,
  ) {}

  @Get('live')
  @HealthEndpoint()
  @ApiOperation({ summary: 'The process is up' })
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthEndpoint()
  @ApiOperation({ summary: 'Database reachable, migrations applied, and (on worker nodes) the worker loop ticking' })
  ready() {
    return this.health.check([
      () => this.database.pingCheck('database', { connection: this.db.dataSource, timeout: 2000 }),
      () => this.migrations(),
      ...[...this.heartbeats.registered()].map(
        ([name, lastPassAt]) =>
          () =>
            this.loop(name, lastPassAt()),
      ),
    ]);
  }

  private async migrations() {
    const check = this.indicators.check('migrations');
    try {
      return (await this.db.dataSource.showMigrations()) ? check.down({ pending: true }) : check.up();
    } catch (error) {
      return check.down({ message: error instanceof Error ? error.message : String(error) });
    }
  }

  /** The loop passes at least every poll interval; a stalled or failing loop stops doing so. */
  private loop(name: string, last: number | undefined) {
    const check = this.indicators.check(name);
    const limitMs = Math.max(5000, 3 * this.config.pollIntervalMs);
    const ageMs = last === undefined ? undefined : Date.now() - last;
    return ageMs !== undefined && ageMs <= limitMs
      ? check.up({ lastPassMsAgo: ageMs })
      : check.down({ lastPassMsAgo: ageMs ?? null });
  }
}
