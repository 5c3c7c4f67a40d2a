import { fork } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { OrbitConfig } from '../config/orbit-config.js';

export interface RunningDatabase {
  url: string;
  /** Stops the embedded PostgreSQL, if this process started one. */
  stop(): Promise<void>;
}

const EMBEDDED_PASSWORD = 'orbit';

/** DATABASE_URL when set; otherwise an embedded PostgreSQL whose data lives in ORBIT_DATA_DIR. */
export async function startDatabase(
  config: Pick<OrbitConfig, 'databaseUrl' | 'dataDir' | 'embeddedPgPort'>,
  log: (line: string) => void,
): Promise<RunningDatabase> {
  if (config.databaseUrl) return { url: config.databaseUrl, stop: () => Promise.resolve() };

  const port = config.embeddedPgPort;
  const url = `postgres://postgres:${EMBEDDED_PASSWORD}@127.0.0.1:${port}/postgres`;
  if (!(await portIsFree(port))) {
    // another Orbit process on this machine started it: share it (the CLI, a second worker)
    if (await answers(url)) {
      log(`Sharing the embedded PostgreSQL another Orbit process runs on port ${port}`);
      return { url, stop: () => Promise.resolve() };
    }
    throw new Error(
      `Port ${port} for the embedded PostgreSQL is taken by something else. ` +
        'Set ORBIT_PG_PORT to use another port, or DATABASE_URL to use an existing PostgreSQL.',
    );
  }
  log(`Starting the embedded PostgreSQL in ${config.dataDir} on port ${port}`);
  const host = fork(
    fileURLToPath(new URL('./embedded-postgres-host.js', import.meta.url)),
    [config.dataDir, String(port), EMBEDDED_PASSWORD],
    { detached: true, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );

  const exited = new Promise<void>((resolve) => host.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    host.once('message', (message: { ready?: boolean; error?: string }) =>
      message.ready ? resolve() : reject(new Error(`The embedded PostgreSQL did not start: ${message.error}`)),
    );
    host.once('exit', (code) => reject(new Error(`The embedded PostgreSQL host exited (code ${code})`)));
  });
  log(`Embedded PostgreSQL ready on 127.0.0.1:${port}; other Orbit processes on this machine share it`);

  return {
    url,
    stop: async () => {
      host.kill('SIGTERM');
      const timer = setTimeout(() => host.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
