import { fork } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { OrbitConfig } from '../config/orbit-config.js';
import { embeddedUrl, ORBIT_ROLE, passwordFile, readPasswords, SUPERUSER } from './embedded-passwords.js';
import { describePortHolder } from './port-holder.js';
import { runningPostmaster } from './running-postmaster.js';

export interface RunningDatabase {
  /** What Orbit connects with: DATABASE_URL, or the embedded PostgreSQL as Orbit's role (no superuser). */
  url: string;
  /** The embedded PostgreSQL's superuser, for tools that need one (the bench); DATABASE_URL otherwise. */
  adminUrl: string;
  /** Stops the embedded PostgreSQL, if this process started it. */
  stop(): Promise<void>;
}

const HOST = fileURLToPath(new URL('./embedded-postgres-host.js', import.meta.url));
/** initdb and a first start take seconds; on a busy machine many more. */
const READY_TIMEOUT_MS = 120_000;
/** How long a process waits for the PostgreSQL another process of its folder is starting. */
const SHARE_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;
/** Ports tried after ORBIT_PG_PORT when something else holds it. */
const PORTS_TO_TRY = 100;

const stopNothing = () => Promise.resolve();

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL whose data lives in ORBIT_DATA_DIR:
 * the one that already runs on that folder (started by another Orbit process of it: a second
 * worker, `orbit token`), or one that this process starts and stops.
 */
export async function startDatabase(
  config: Pick<OrbitConfig, 'databaseUrl' | 'dataDir' | 'embeddedPgPort'>,
  log: (line: string) => void,
): Promise<RunningDatabase> {
  if (config.databaseUrl) return { url: config.databaseUrl, adminUrl: config.databaseUrl, stop: stopNothing };
  const running = await shareRunning(config.dataDir, log);
  if (running) return running;

  const port = await choosePort(config.embeddedPgPort, config.dataDir, log);
  log(`Starting the embedded PostgreSQL in ${config.dataDir} on port ${port}`);
  let stop: () => Promise<void>;
  try {
    stop = await startHost(config.dataDir, port, log);
  } catch (error) {
    // another process of this folder may have started it at the same moment
    const started = await shareRunning(config.dataDir, log);
    if (started) return started;
    throw error;
  }
  const passwords = readPasswords(config.dataDir)!;
  log(`Embedded PostgreSQL ready on 127.0.0.1:${port}; Orbit's processes with this data folder share it`);
  return { url: embeddedUrl(port, ORBIT_ROLE, passwords), adminUrl: embeddedUrl(port, SUPERUSER, passwords), stop };
}

/** The embedded PostgreSQL of this data folder that another process runs, once it accepts Orbit's role. */
async function shareRunning(dataDir: string, log: (line: string) => void): Promise<RunningDatabase | undefined> {
  const postmaster = runningPostmaster(join(dataDir, 'postgres'));
  if (!postmaster) return undefined;
  const { pid, port } = postmaster;
  const passwords = readPasswords(dataDir);
  if (!passwords) {
    throw new Error(
      `The embedded PostgreSQL of ${dataDir} (pid ${pid}, port ${port}) was started by an Orbit from before ` +
        `each data folder had passwords of its own (${passwordFile(dataDir)}): stop that Orbit, then start again`,
    );
  }
  const url = embeddedUrl(port, ORBIT_ROLE, passwords);
  const deadline = Date.now() + SHARE_TIMEOUT_MS;
  for (;;) {
    // the starting process sets up the role's password right after PostgreSQL is ready
    const refusal = await refusalOf(url);
    if (refusal === undefined) break;
    if (!runningPostmaster(join(dataDir, 'postgres'))) return undefined;
    if (Date.now() > deadline) {
      throw new Error(
        `The embedded PostgreSQL of ${dataDir} (pid ${pid}, port ${port}) did not accept Orbit's connection ` +
          `within ${SHARE_TIMEOUT_MS / 1000} s: ${refusal}. If no PostgreSQL runs there, remove ` +
          `${join(dataDir, 'postgres', 'postmaster.pid')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  log(`Sharing the embedded PostgreSQL of ${dataDir} (port ${port}, pid ${pid}) that another Orbit process started`);
  return { url, adminUrl: embeddedUrl(port, SUPERUSER, passwords), stop: stopNothing };
}

/** ORBIT_PG_PORT, or when another program (another installation's PostgreSQL) holds it, the next free port. */
async function choosePort(preferred: number, dataDir: string, log: (line: string) => void): Promise<number> {
  if (await portIsFree(preferred)) return preferred;
  for (let port = preferred + 1; port <= Math.min(preferred + PORTS_TO_TRY, 65_535); port++) {
    if (!(await portIsFree(port))) continue;
    const holder = describePortHolder(preferred);
    log(
      `Port ${preferred} is taken${holder ? ` by ${holder}` : ''}: this folder's embedded PostgreSQL uses port ` +
        `${port} instead (Orbit's processes find it in ${join(dataDir, 'postgres', 'postmaster.pid')})`,
    );
    return port;
  }
  throw new Error(`Ports ${preferred} to ${preferred + PORTS_TO_TRY} are all taken: set ORBIT_PG_PORT to a free port`);
}

/**
 * Forks the host of the embedded PostgreSQL (embedded-postgres-host.ts) and waits until it is
 * ready; answers how to stop it. A start that fails or takes too long leaves nothing running.
 */
async function startHost(dataDir: string, port: number, log: (line: string) => void): Promise<() => Promise<void>> {
  const host = fork(HOST, [dataDir, String(port)], { detached: true, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => host.once('exit', () => resolve()));
  const stop = async () => {
    if (host.connected) host.disconnect(); // the host stops PostgreSQL, then exits
    const timer = setTimeout(() => {
      try {
        process.kill(-host.pid!, 'SIGKILL'); // its process group: PostgreSQL too
      } catch {
        // gone meanwhile
      }
    }, STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`The embedded PostgreSQL did not start within ${READY_TIMEOUT_MS / 1000} s`)),
        READY_TIMEOUT_MS,
      );
      host.on('message', (message: { log?: string; ready?: boolean; error?: string }) => {
        if (message.log) log(message.log);
        if (message.ready) resolve();
        if (message.error) reject(new Error(`The embedded PostgreSQL did not start: ${message.error}`));
      });
      host.once('exit', (code, signal) =>
        reject(new Error(`The embedded PostgreSQL's host exited (code ${code}, signal ${signal}) before it was ready`)),
      );
    });
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return stop;
}

/** Why PostgreSQL refuses this URL now, or undefined when it accepts it. */
async function refusalOf(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
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
