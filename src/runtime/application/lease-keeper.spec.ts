import { Logger } from '@nestjs/common';
import { loadConfig } from '../../config/orbit-config.js';
import type { ExecutionRepository, LeaseRenewal } from '../../executions/application/execution.repository.js';
import type { WorkerRegistry } from '../../workers/application/worker-registry.js';
import { FakeClock } from '../../../test/support/fake-clock.js';
import type { CommandRunner } from './command-runner.js';
import { LeaseKeeper } from './lease-keeper.js';
import type { RunningCommand } from './running-command.js';

/**
 * The lease arithmetic alone, on the injected clock: the database is a function that renews or
 * fails, so a clock moved by hand decides when a worker stops what it can no longer lease.
 */
describe('LeaseKeeper', () => {
  const config = loadConfig(
    { DATABASE_URL: 'postgres://x', ORBIT_LEASE_SECONDS: '30', ORBIT_HEARTBEAT_SECONDS: '10' },
    [],
  );
  let clock: FakeClock;
  let renew: (ids: string[]) => Promise<LeaseRenewal>;
  let killed: string[];
  let keeper: LeaseKeeper;
  const running = new Map([['e1', { hasExited: false, execution: { jobId: 'j1' } } as unknown as RunningCommand]]);

  beforeEach(async () => {
    clock = new FakeClock(new Date('2026-12-01T10:00:00.000Z'));
    killed = [];
    renew = (ids) => Promise.resolve({ renewed: ids, held: [] });
    const repository = { renewLeases: (_w: string, ids: string[]) => renew(ids) } as unknown as ExecutionRepository;
    const registry = { beat: () => Promise.resolve() } as unknown as WorkerRegistry;
    const runner = { kill: (id: string) => killed.push(id) } as unknown as CommandRunner;
    const logger = { warn: () => undefined } as unknown as Logger;
    keeper = new LeaseKeeper('w1', config, clock, repository, registry, runner, running, logger);
    keeper.start();
    await keeper.stop(); // beats are driven by hand
  });

  it('a lease runs the lease length from the clock', () => {
    expect(keeper.leaseFrom(clock.now()).toISOString()).toBe('2026-12-01T10:00:30.000Z');
  });

  it('renewed leases keep the command running however much time passes', async () => {
    for (let beat = 0; beat < 10; beat++) {
      clock.advance(10_000);
      await keeper.beat();
    }
    expect(killed).toEqual([]);
  });

  it('failed renewals stop the command once the lease could run out before the next beat, by the clock', async () => {
    renew = () => Promise.reject(new Error('database unreachable'));
    clock.advance(10_000);
    await keeper.beat();
    expect(killed).toEqual([]); // 10 s since the last renewal + 10 s to the next beat < 30 s
    clock.advance(10_000);
    await keeper.beat();
    expect(killed).toEqual(['e1']); // 20 s + 10 s reaches the 30 s lease
  });

  it('a command whose row another transaction holds counts as not renewed', async () => {
    renew = (ids) => Promise.resolve({ renewed: [], held: ids });
    clock.advance(20_000);
    await keeper.beat();
    expect(killed).toEqual(['e1']);
  });

  it('a command no longer this worker’s (cancelled or reaped) is stopped at the next beat', async () => {
    renew = () => Promise.resolve({ renewed: [], held: [] });
    clock.advance(1000);
    await keeper.beat();
    expect(killed).toEqual(['e1']);
  });
});
