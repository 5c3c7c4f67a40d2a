import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { stringify } from 'yaml';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { buildCli, CliResult, RunningCli, startCli } from './support.js';

export type Body = Record<string, unknown>;

/** An Orbit listening on a port of its own, as the CLI reaches it. */
export interface Orbit {
  t: TestApp;
  url: string;
}

async function startOrbit(role: 'all' | 'api', workDir: string): Promise<Orbit> {
  const t = await createTestApp({
    role,
    asAdmin: false, // a request without a token is refused, as the CLI meets Orbit
    env: { ORBIT_WORK_DIR: workDir, ORBIT_POLL_INTERVAL_MS: '200', ORBIT_ALERTS_ALLOW_PRIVATE: 'true' },
  });
  await t.app.listen(0, '127.0.0.1');
  return { t, url: `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}` };
}

/**
 * The compiled CLI and two real Orbits, shared by the tests of one file: `orbit`, a whole node
 * (API, scheduler, worker), and `fresh`, an API alone (its runs stay queued).
 */
export interface Harness {
  entry: string;
  home: string;
  orbit: Orbit;
  fresh: Orbit;
  /** `orbit <args>` to its end, with ORBIT_URL (the whole node's unless `url`) and the admin token. */
  cli(args: string[], env?: Record<string, string>, options?: { url?: string; input?: string }): Promise<CliResult>;
  /** The environment `cli` gives the CLI, with `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** `orbit <args>` started, for commands that follow a stream. */
  start(args: string[]): RunningCli;
  /** The whole node's API, as the admin. */
  api(orbit?: Orbit): ReturnType<typeof request.agent>;
  /** A file in the home folder (YAML unless given as text); answers its path. */
  file(name: string, content: unknown): string;
  /** A job made through the API; answers it. */
  job(fields: Body, orbit?: Orbit): Promise<Body>;
  /** The job's name → its settings (what an apply compares), of every stored job. */
  settings(orbit?: Orbit): Promise<Record<string, Body>>;
}

/** Registers the beforeAll and afterAll that start and stop the harness; its fields are set once they ran. */
export function harness(): Harness {
  const h = {} as Harness;
  const env = (extra: Record<string, string> = {}, url = h.orbit.url) => ({
    HOME: h.home,
    XDG_CONFIG_HOME: join(h.home, 'config'),
    ORBIT_URL: url,
    ORBIT_TOKEN: TEST_ADMIN_TOKEN,
    ...extra,
  });
  Object.assign(h, {
    env,
    cli: (args: string[], extra?: Record<string, string>, options: { url?: string; input?: string } = {}) =>
      startCli(h.entry, args, env(extra, options.url), options.input).done,
    start: (args: string[]) => startCli(h.entry, args, env()),
    api: (orbit = h.orbit) =>
      request.agent(orbit.t.app.getHttpServer()).set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`),
    file: (name: string, content: unknown) => {
      const path = join(h.home, name);
      writeFileSync(path, typeof content === 'string' ? content : stringify(content));
      return path;
    },
    job: async (fields: Body, orbit = h.orbit) =>
      (await h.api(orbit).post('/jobs').send(fields).expect(201)).body as Body,
    settings: async (orbit = h.orbit) => {
      const { items } = (await h.api(orbit).get('/jobs?limit=100').expect(200)).body as { items: Body[] };
      return Object.fromEntries(
        items.map(({ id: _i, createdAt: _c, updatedAt: _u, nextRunAt: _n, lastExecution: _l, ...job }) => [
          job.name as string,
          job,
        ]),
      );
    },
  });

  beforeAll(async () => {
    h.home = mkdtempSync(join(tmpdir(), 'orbit-cli-home-'));
    chmodSync(h.home, 0o755); // as root, commands run as nobody: they must reach the work dir inside
    [h.entry, h.orbit, h.fresh] = await Promise.all([
      buildCli(),
      startOrbit('all', join(h.home, 'work')),
      startOrbit('api', join(h.home, 'work-fresh')),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([h.orbit?.t.close(), h.fresh?.t.close()]);
    if (h.home) rmSync(h.home, { recursive: true, force: true });
    if (h.entry) rmSync(join(h.entry, '../../..'), { recursive: true, force: true }); // the compiled CLI
  });
  return h;
}
