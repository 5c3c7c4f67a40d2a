import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useCluster } from './support/cluster.js';
import { Body, OrbitClient } from './support/http.js';
import { OrbitNode } from './support/orbit-node.js';
import { childrenOf, freePort, waitFor } from './support/util.js';

/**
 * What a job's command can read of Orbit's secrets, on real Orbit processes started as root
 * (as the suite runs): the command copies `/proc/<pid>/environ` of every process it may read
 * into its work dir, and every command line (anyone may read those) into one file beside them,
 * and the test looks for the secrets in what it copied.
 */
const SCAN = [
  'id -un',
  'if cat /proc/$PPID/environ >/dev/null 2>&1; then echo "parent $PPID readable"; else echo "parent $PPID unreadable"; fi',
  'mkdir "scan-$ORBIT_EXECUTION_ID" "cmdlines-$ORBIT_EXECUTION_ID" && cd "scan-$ORBIT_EXECUTION_ID" || exit 1',
  'for f in /proc/[0-9]*/environ; do',
  '  pid=${f#/proc/}; pid=${pid%/environ}',
  '  cat "$f" > "$pid" 2>/dev/null || rm -f "$pid"',
  '  cat "/proc/$pid/cmdline" >> "../cmdlines-$ORBIT_EXECUTION_ID/all" 2>/dev/null',
  'done',
  'echo "self $$"',
].join('\n');

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

interface Scan {
  /** What the command printed: its user, whether it could read its parent (the launcher), its pid. */
  stdout: string;
  /** The environment of every process the command could read, by pid. */
  environs: Map<number, string>;
  /** The command line of every process, one after the other. */
  cmdlines: string;
}

describe('reliability: a command reads every /proc/*/environ it can and finds no secret of Orbit', () => {
  const cluster = useCluster('secrets');
  const dbPassword = hex(16);
  const dbRole = `secrets_probe_${hex(4)}`;
  let dbUrl: string;

  beforeAll(async () => {
    const c = cluster();
    await c.sql(`CREATE ROLE ${dbRole} LOGIN SUPERUSER PASSWORD '${dbPassword}'`);
    dbUrl = `postgres://${dbRole}:${dbPassword}@127.0.0.1:${c.postgres.port}/postgres`;
  });

  /** The secrets of one node: its admin token, the SMTP password, the DATABASE_URL password. */
  function secretsOf(token: string, smtpUrl: string) {
    return { token, smtp: new URL(smtpUrl).password, database: dbPassword };
  }

  /** Runs SCAN once on a node, then stops it (so that the next node's scan sees none of its secrets). */
  async function scanOn(node: OrbitNode, token: string): Promise<Scan & { orbit: string; children: number[] }> {
    const c = cluster();
    try {
      const client = new OrbitClient(node.url, token);
      const job = await client.createJob({ name: `scan-${hex(4)}`, command: SCAN, cronExpression: '0 0 1 1 *' });
      const run = await client.trigger(job.id as string);
      const done = await waitFor(
        async () => {
          const body: Body = await client.expect(200, 'GET', `/executions/${run.id}`);
          return ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(body.status as string) ? body : undefined;
        },
        'the scan to finish',
        30_000,
      );
      const output: Body = await client.expect(200, 'GET', `/executions/${run.id}/output`);
      expect({ status: done.status, stderr: output.stderr }).toEqual({ status: 'SUCCEEDED', stderr: '' });
      const folder = join(c.workDir, `scan-${run.id}`);
      const environs = new Map(
        readdirSync(folder).map((pid) => [Number(pid), readFileSync(join(folder, pid), 'utf8')] as const),
      );
      // read while the node still runs: the test (root) sees what a command that could read it would see
      const orbit = readFileSync(`/proc/${node.pid}/environ`, 'utf8');
      const cmdlines = readFileSync(join(c.workDir, `cmdlines-${run.id}`, 'all'), 'utf8');
      return { stdout: output.stdout as string, environs, cmdlines, orbit, children: childrenOf(node.pid) };
    } finally {
      await node.stop();
    }
  }

  /** The pids whose environment holds one of the secrets, by secret (no command line may hold any). */
  function holders(scan: Scan, secrets: Record<string, string>): Record<string, number[]> {
    expect(scan.cmdlines).toContain('dist/src/main.js');
    for (const secret of Object.values(secrets)) expect(scan.cmdlines).not.toContain(secret);
    return Object.fromEntries(
      Object.entries(secrets).map(([name, secret]) => [
        name,
        [...scan.environs].filter(([, environ]) => environ.includes(secret)).map(([pid]) => pid),
      ]),
    );
  }

  const selfPid = (scan: Scan) => Number(/^self (\d+)$/m.exec(scan.stdout)?.[1]);

  it('as root, with secrets in variables: the command runs as nobody and can read no environment of Orbit', () =>
    cluster().scenario(async () => {
      const c = cluster();
      const token = `orbit-admin-${hex(24)}`;
      const smtpUrl = `smtp://mailer:${hex(16)}@127.0.0.1:2525`;
      const node = await c.startNode({
        name: 'variables',
        role: 'all',
        env: { DATABASE_URL: dbUrl, ORBIT_ADMIN_TOKEN: token, ORBIT_SMTP_URL: smtpUrl },
      });
      const scan = await scanOn(node, token);

      expect(scan.stdout).toMatch(/^nobody\nparent \d+ unreadable\nself \d+\n$/);
      // the scan works: it read its own environment
      expect(scan.environs.get(selfPid(scan))).toContain('ORBIT_EXECUTION_ID=');
      expect(holders(scan, secretsOf(token, smtpUrl))).toEqual({ token: [], smtp: [], database: [] });
      // and there was something to find, in a process the command could not read
      expect(scan.orbit).toContain(token);
      expect(scan.environs.has(node.pid)).toBe(false);
    }));

  it('as root with ORBIT_COMMAND_USER=root, secrets in *_FILE: the command reads every environment, and none holds a secret', () =>
    cluster().scenario(async () => {
      const c = cluster();
      const token = `orbit-admin-${hex(24)}`;
      const smtpUrl = `smtps://mailer:${hex(16)}@127.0.0.1:2525`;
      const file = (name: string, content: string) => {
        const path = join(c.postgres.root, name);
        writeFileSync(path, `${content}\n`, { mode: 0o600 });
        return path;
      };
      const node = await c.startNode({
        name: 'files',
        role: 'all',
        env: {
          ORBIT_COMMAND_USER: 'root',
          DATABASE_URL: '',
          ORBIT_ADMIN_TOKEN: '',
          DATABASE_URL_FILE: file('database-url', dbUrl),
          ORBIT_ADMIN_TOKEN_FILE: file('admin-token', token),
          ORBIT_SMTP_URL_FILE: file('smtp-url', smtpUrl),
        },
      });
      const scan = await scanOn(node, token);

      const launcher = Number(/^parent (\d+) readable$/m.exec(scan.stdout)?.[1]);
      expect(scan.stdout).toMatch(/^root\nparent \d+ readable\nself \d+\n$/);
      expect(node.find(/Commands run as root \(ORBIT_COMMAND_USER\)/)).toBeDefined();
      // it read Orbit's environment and the launcher's, which is empty (the Node spawner's but for its IPC channel)
      expect(scan.environs.get(node.pid)).toBe(scan.orbit);
      expect(
        scan.environs
          .get(launcher)
          ?.split('\0')
          .filter(Boolean)
          .map((v) => v.split('=')[0]),
      ).toEqual(node.launcher === 'node' ? ['NODE_CHANNEL_FD', 'NODE_CHANNEL_SERIALIZATION_MODE'] : []);
      expect(node.launcher).toBeDefined();
      expect(holders(scan, secretsOf(token, smtpUrl))).toEqual({ token: [], smtp: [], database: [] });
    }));

  it('as root with ORBIT_COMMAND_USER=root, secrets in variables: only the initial environment of Orbit itself holds them', () =>
    cluster().scenario(async () => {
      const c = cluster();
      const token = `orbit-admin-${hex(24)}`;
      const smtpUrl = `smtp://mailer:${hex(16)}@127.0.0.1:2525`;
      // the embedded PostgreSQL: its host is a process Orbit starts after it read its settings
      const node = await c.startNode({
        name: 'embedded',
        role: 'all',
        env: {
          ORBIT_COMMAND_USER: 'root',
          DATABASE_URL: '',
          ORBIT_PG_PORT: String(await freePort()),
          ORBIT_ADMIN_TOKEN: token,
          ORBIT_SMTP_URL: smtpUrl,
        },
      });
      const scan = await scanOn(node, token);

      // Orbit's children (the launcher and the embedded PostgreSQL's host) were read, and hold nothing
      expect(scan.children.length).toBeGreaterThanOrEqual(2);
      for (const child of scan.children) expect(scan.environs.has(child)).toBe(true);
      const { token: tokenHolders, smtp } = holders(scan, secretsOf(token, smtpUrl));
      expect({ token: tokenHolders, smtp }).toEqual({ token: [node.pid], smtp: [node.pid] });
    }));
});
