import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../support/wait.js';
import { orbitCli, OrbitServer, processesNaming, useBuildAndDataFolders } from '../postgres/support.js';

const ADMIN = 'token-admin-e2e-admin-secret-0123456789';

/** The id and the secret that `orbit token create` printed. */
function created(stdout: string): { id: string; secret: string } {
  const id = /id ([0-9a-f-]{36})\./.exec(stdout)?.[1];
  const secret = /^(orbit_\S+)$/m.exec(stdout)?.[1];
  if (!id || !secret) throw new Error(`orbit token create printed no id and secret:\n${stdout}`);
  return { id, secret };
}

describe('orbit token, the compiled command line on the database directly', () => {
  const { build: built, dataFolder } = useBuildAndDataFolders();

  it('prints its usage on stdout for --help and exits 0, and orbit --help lists it', async () => {
    const help = await orbitCli(built(), ['token', '--help'], {});
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('orbit token create --name <name> --role <viewer|operator|admin>');

    const main = await orbitCli(built(), ['--help'], {});
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(/^ {2}token {2,}Tokens on the database, without the API/m);
  });

  it.each([
    [['token', 'create', '--name', 'ci'], 'orbit token create needs --name and --role'],
    [['token', 'revoke', 'abc'], "'abc' is not a token id"],
    [['token', 'rename'], 'unknown: orbit token rename'],
    [['token'], 'a command is missing'],
    [['token', 'list', '--colour'], "Unknown option '--colour'"],
  ])('refuses %j with its usage and code 2, before it touches any database', async (args, message) => {
    const dataDir = dataFolder('token-usage');
    const result = await orbitCli(built(), args, { ORBIT_DATA_DIR: dataDir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Usage: orbit token create');
    expect(existsSync(dataDir)).toBe(false);
  });

  describe('with Orbit stopped', () => {
    const dataDir = dataFolder('token-stopped');
    // a port of its own: the tests leave 54329 to the Orbits of this machine
    let pgPort: string;
    beforeAll(async () => {
      pgPort = String(await freePort());
    });
    const cli = (args: string[]) =>
      orbitCli(built(), ['token', ...args], { ORBIT_DATA_DIR: dataDir, ORBIT_PG_PORT: pgPort });

    it('starts the embedded PostgreSQL itself for each command, and leaves no process behind', async () => {
      const create = await cli(['create', '--name', 'ci2', '--role', 'operator']);
      expect(create).toMatchObject({ code: 0 });
      expect(create.stderr).toContain(`Starting the embedded PostgreSQL in ${dataDir}`);
      const { id } = created(create.stdout);
      expect(processesNaming(dataDir)).toEqual([]);

      const listed = await cli(['list']);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(new RegExp(`^${id} {2}operator {2}\\S+ {2}ci2$`, 'm'));
      expect(processesNaming(dataDir)).toEqual([]);

      const revoked = await cli(['revoke', id]);
      expect(revoked).toMatchObject({ code: 0, stdout: `Revoked token ${id}\n` });
      expect((await cli(['list'])).stdout).not.toContain(id);
      expect(processesNaming(dataDir)).toEqual([]);
    }, 120_000);

    it('answers a refusal with the reason and code 1', async () => {
      const role = await cli(['create', '--name', 'ci3', '--role', 'root']);
      expect(role.code).toBe(1);
      expect(role.stderr).toContain('orbit token: role must be one of viewer, operator, admin');

      const unknown = await cli(['revoke', '00000000-0000-4000-8000-000000000000']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('Token 00000000-0000-4000-8000-000000000000 not found');
      expect(processesNaming(dataDir)).toEqual([]);
    }, 120_000);

    it('ends with a clear error when its PostgreSQL cannot start, soon, and leaves no process behind', async () => {
      const broken = dataFolder('token-broken');
      mkdirSync(join(broken, 'postgres'), { recursive: true });
      writeFileSync(join(broken, 'postgres', 'PG_VERSION'), '18\n'); // a cluster folder with nothing else

      const result = await orbitCli(built(), ['token', 'list'], {
        ORBIT_DATA_DIR: broken,
        ORBIT_PG_PORT: String(await freePort()),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('orbit token: The embedded PostgreSQL did not start');
      expect(result.stderr).toContain('postgresql.conf');
      expect(result.ms).toBeLessThan(30_000);
      expect(processesNaming(broken)).toEqual([]);
    }, 60_000);
  });

  describe('beside a running Orbit of the same data folder, without ORBIT_PG_PORT', () => {
    const dataDir = dataFolder('token-running');
    let orbit: OrbitServer;
    const cli = (args: string[]) => orbitCli(built(), ['token', ...args], { ORBIT_DATA_DIR: dataDir });
    const hosts = () => processesNaming(dataDir).filter((line) => line.includes('embedded-postgres-host'));

    beforeAll(async () => {
      // a port of its own, so that the command can only find it through the data folder
      const port = String(await freePort());
      orbit = await OrbitServer.start(built(), {
        ORBIT_DATA_DIR: dataDir,
        ORBIT_PG_PORT: port,
        ORBIT_ADMIN_TOKEN: ADMIN,
      });
    }, 120_000);
    afterAll(() => orbit?.stop());

    it('makes a token that Orbit accepts at once, and revokes it, on Orbit’s own PostgreSQL', async () => {
      const create = await cli(['create', '--name', 'ci2', '--role', 'operator']);
      expect(create.code).toBe(0);
      expect(create.stderr).toContain(`Sharing the embedded PostgreSQL of ${dataDir}`);
      expect(create.stderr).not.toContain('Starting');
      const { id, secret } = created(create.stdout);
      expect(await orbit.api('/auth/me', secret)).toMatchObject({
        status: 200,
        body: { name: 'ci2', role: 'operator' },
      });

      expect((await cli(['list'])).stdout).toContain(id);
      expect((await orbit.api('/tokens', ADMIN)).body).toMatchObject({ items: [expect.objectContaining({ id })] });

      expect((await cli(['revoke', id])).code).toBe(0);
      expect((await orbit.api('/auth/me', secret)).status).toBe(401);
    }, 60_000);

    it('leaves Orbit’s PostgreSQL running and starts none of its own', async () => {
      expect(hosts()).toHaveLength(1);
      expect((await cli(['list'])).code).toBe(0);
      expect(hosts()).toHaveLength(1);
      expect((await orbit.api('/health/ready', ADMIN)).status).toBe(200);
    }, 60_000);
  });
});
