import { ExecutionMetrics } from '../../src/executions/application/execution-metrics.js';
import { ExecutionsService } from '../../src/executions/application/executions.service.js';
import { JobsService } from '../../src/jobs/application/jobs.service.js';
import { PromMetrics } from '../../src/observability/infrastructure/prom-metrics.js';
import { LeaseReaperService } from '../../src/runtime/application/lease-reaper.service.js';
import { createTestApp, TestApp } from '../support/test-app.js';

describe('orbit_timeouts_total counts timeouts from the outcome, never from the message', () => {
  let t: TestApp;
  let jobs: JobsService;
  let executions: ExecutionsService;
  const timeouts = async () => {
    const metric = t.app
      .get<ExecutionMetrics, PromMetrics>(ExecutionMetrics)
      .registry.getSingleMetric('orbit_timeouts_total');
    return (await metric!.get()).values[0]?.value ?? 0;
  };

  beforeAll(async () => {
    t = await createTestApp({ role: 'all', init: false });
    jobs = t.app.get(JobsService);
    executions = t.app.get(ExecutionsService);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a failure reported with a timeout-like message is no timeout; a run past its timeout is one', async () => {
    const job = await jobs.create({
      name: 'timeouts',
      command: 'true',
      cronExpression: '0 0 1 1 *',
      timeoutSeconds: 1,
    });
    const reported = await executions.create(job.id);
    await executions.start(reported.id);
    await executions.fail(reported.id, 124, 'Timed out after 1 seconds');
    expect(await timeouts()).toBe(0);

    const abandoned = await executions.create(job.id);
    await executions.start(abandoned.id);
    expect(await t.app.get(LeaseReaperService).sweep(new Date(Date.now() + 2000))).toBe(1);
    expect((await executions.get(abandoned.id)).errorMessage).toBe('Timed out after 1 seconds');
    expect(await timeouts()).toBe(1);
  });
});
