import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { loadConfig } from '../../src/config/orbit-config.js';
import { createTestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const asRoot = process.getuid?.() === 0;

describe('ORBIT_RUN_AS_USER', () => {
  it('is refused at start unless Orbit runs as root', () => {
    const load = () => loadConfig({ ORBIT_RUN_AS_USER: 'nobody' }, []);
    if (asRoot) expect(load().runAsUser).toBe('nobody');
    else expect(load).toThrow('ORBIT_RUN_AS_USER needs Orbit to run as root');
  });

  (asRoot ? it : it.failing)(
    'runs commands as that unprivileged user, with its identity in the environment',
    async () => {
      const workDir = join(tmpdir(), `orbit-run-as-${process.pid}`);
      const t = await createTestApp({ role: 'all', env: { ORBIT_RUN_AS_USER: 'nobody', ORBIT_WORK_DIR: workDir } });
      try {
        const http = () => request(t.app.getHttpServer());
        const job = await http()
          .post('/jobs')
          .send({
            name: 'who',
            command: 'id -un; echo "$USER"; touch ./written-by-nobody && echo ok',
            cronExpression: '0 0 1 1 *',
          })
          .expect(201);
        const { body: queued } = await http().post(`/jobs/${job.body.id}/executions`).expect(201);
        await waitFor(async () => {
          const { body } = await http().get(`/executions/${queued.id}`);
          return body.status === 'SUCCEEDED' ? true : undefined;
        }, 'the command to succeed');
        const { body } = await http().get(`/executions/${queued.id}/output`).expect(200);
        expect(body.stdout).toBe('nobody\nnobody\nok\n');
      } finally {
        await t.close();
        rmSync(workDir, { recursive: true, force: true });
      }
    },
  );
});
