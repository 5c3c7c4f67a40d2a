import request from 'supertest';
import { WorkerService } from '../../src/runtime/application/worker.service.js';
import type { Schema } from '../support/api-types.js';
import { createJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { createTestDatabase, TestDatabase } from '../support/test-database.js';
import { waitFor } from '../support/wait.js';

type Execution = Schema<'ExecutionResponse'>;
type Worker = Schema<'WorkerResponse'>;

/** GET /workers: beside each worker's load and labels, the runs it holds now. */
describe('what each worker runs now', () => {
  let db: TestDatabase;
  let api: TestApp;
  const workers: Record<'a' | 'b', { node: TestApp; id: string }> = {} as never;
  const http = () => request(api.app.getHttpServer());

  async function running(pool: string, name: string): Promise<Execution> {
    const job = await createJob(api, { name, command: 'sleep 30', workerSelector: { pool } });
    const queued = (await http().post(`/jobs/${job.id}/executions`).send({}).expect(201)).body as Execution;
    return waitFor(async () => {
      const execution = (await http().get(`/executions/${queued.id}`).expect(200)).body as Execution;
      return execution.status === 'RUNNING' ? execution : undefined;
    }, `${name} to run`);
  }

  async function listed(): Promise<Map<string, Worker>> {
    const { items } = (await http().get('/workers').expect(200)).body as { items: Worker[] };
    return new Map(items.map((worker) => [worker.id, worker]));
  }

  const held = (execution: Execution, jobName: string) => ({
    id: execution.id,
    jobId: execution.jobId,
    jobName,
    startedAt: execution.startedAt,
  });
  const byId = <T extends { id: string }>(items: T[]) => [...items].sort((x, y) => x.id.localeCompare(y.id));

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await createTestApp({ db });
    for (const pool of ['a', 'b'] as const) {
      const node = await createTestApp({ db, role: 'worker', env: { ORBIT_WORKER_LABELS: `pool=${pool}` } });
      workers[pool] = { node, id: node.app.get(WorkerService).id };
    }
  });

  afterAll(async () => {
    for (const { node } of Object.values(workers)) await node?.close();
    await api?.close();
    await db?.drop();
  });

  it('lists the executions each worker runs, with their job names; a run that ends leaves the list', async () => {
    const a1 = await running('a', 'held-a1');
    const a2 = await running('a', 'held-a2');
    const b1 = await running('b', 'held-b1');

    const now = await listed();
    expect(byId(now.get(workers.a.id)!.executions)).toEqual(byId([held(a1, 'held-a1'), held(a2, 'held-a2')]));
    expect(now.get(workers.b.id)!.executions).toEqual([held(b1, 'held-b1')]);

    await http().post(`/executions/${a1.id}/cancel`).send({}).expect(200);
    expect((await listed()).get(workers.a.id)!.executions).toEqual([held(a2, 'held-a2')]);

    // a drain answers the worker as GET /workers does
    const drained = (await http().post(`/workers/${workers.b.id}/drain`).expect(200)).body as Worker;
    expect(drained.executions).toEqual([held(b1, 'held-b1')]);
    await http().post(`/workers/${workers.b.id}/resume`).expect(200);

    for (const execution of [a2, b1]) await http().post(`/executions/${execution.id}/cancel`).send({}).expect(200);
    await waitFor(async () => {
      const after = await listed();
      return [...after.values()].every((worker) => worker.executions.length === 0) ? true : undefined;
    }, 'every worker to run nothing');
  });
});
