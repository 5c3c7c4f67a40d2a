import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Body, Harness } from '../harness.js';

const JOBS = {
  backup: { command: 'backup.sh', cronExpression: '0 3 * * *', timezone: 'Europe/Berlin', maxRetries: 2 },
  report: { command: 'report.sh', cronExpression: '@hourly', alerts: [{ channel: 'ops', on: ['failed'] }] },
  cleanup: { command: 'cleanup.sh', cronExpression: '*/15 * * * *', enabled: false },
};
const CHANNELS = { ops: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } };

export function applyCases(h: Harness): void {
  const storedJobs = async () => ((await h.api().get('/jobs?limit=100').expect(200)).body as { items: Body[] }).items;

  describe('apply and export', () => {
    it('creates the three jobs of a file, with the channel they alert to', async () => {
      const result = await h.cli(['apply', '-f', h.file('orbit.yaml', { channels: CHANNELS, jobs: JOBS })]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain(
        '+ create channels.ops\n+ create jobs.backup\n+ create jobs.report\n+ create jobs.cleanup\n',
      );
      expect(result.stdout).toContain('Applied: 4 to create, 0 to update, 0 to delete, 0 unchanged');
      expect(Object.keys(await h.settings()).sort()).toEqual(['backup', 'cleanup', 'report']);
    });

    it('applying the same file again changes nothing, and says so', async () => {
      const before = await storedJobs();
      const result = await h.cli(['apply', '--file', join(h.home, 'orbit.yaml')]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(
        '0 to create, 0 to update, 0 to delete, 4 unchanged\nOrbit already matches the file: nothing to change.\n',
      );
      expect(result.stdout).not.toContain('Applied');
      expect(await storedJobs()).toEqual(before);
    });

    it('an edited job is one update, its changed fields shown; --dry-run stops at the plan and says so', async () => {
      const edited = h.file('edited.yaml', {
        channels: CHANNELS,
        jobs: { ...JOBS, report: { ...JOBS.report, cronExpression: '@daily' } },
      });
      const dry = await h.cli(['apply', '-f', edited, '--dry-run']);
      expect(dry.stdout).toContain('~ update jobs.report\n      cronExpression: "@hourly" → "@daily"\n');
      expect(dry.stdout).toMatch(
        /0 to create, 1 to update, 0 to delete, 3 unchanged\nDry run: nothing was changed\.\n$/,
      );
      expect((await h.settings()).report?.cronExpression).toBe('@hourly');
      const result = await h.cli(['apply', '-f', edited]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Applied: 0 to create, 1 to update, 0 to delete, 3 unchanged');
      expect((await h.settings()).report?.cronExpression).toBe('@daily');
    });

    it('-f - reads the file from stdin', async () => {
      const text = readFileSync(join(h.home, 'edited.yaml'), 'utf8');
      const result = await h.cli(['apply', '-f', '-', '--dry-run'], {}, { input: text });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('0 to create, 0 to update, 0 to delete, 4 unchanged');
    });

    it('--prune deletes the jobs an apply created that the file no longer names, and only those', async () => {
      await h.job({ name: 'by-hand', command: 'x', cronExpression: '@daily' });
      const { cleanup: _gone, ...kept } = JOBS;
      const smaller = h.file('smaller.yaml', {
        channels: CHANNELS,
        jobs: { ...kept, report: { ...JOBS.report, cronExpression: '@daily' } },
      });
      const without = await h.cli(['apply', '-f', smaller]);
      expect(without.stdout).toContain('0 to create, 0 to update, 0 to delete, 3 unchanged');
      const result = await h.cli(['apply', '-f', smaller, '--prune']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('- delete jobs.cleanup\n');
      expect(Object.keys(await h.settings()).sort()).toEqual(['backup', 'by-hand', 'report']);
    });

    it('a file with one bad job changes nothing, and the error names the job and the field', async () => {
      const before = await storedJobs();
      const bad = h.file('bad.yaml', {
        jobs: {
          ...JOBS,
          newcomer: { command: 'x', cronExpression: '@daily' },
          broken: { command: 'x', cronExpression: '@daily', timeoutSeconds: 0 },
        },
      });
      const result = await h.cli(['apply', '-f', bad, '--prune']);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('orbit: jobs.broken: timeoutSeconds must be an integer from 1 to 604800\n');
      expect(await storedJobs()).toEqual(before);
    });

    it('every mistake of a file is reported, a mistyped field with the one it meant, a missing one as missing', async () => {
      const before = await storedJobs();
      const typos = h.file(
        'typos.yaml',
        [
          'jobs:',
          '  first:',
          '    comand: echo hi',
          "    cronExpression: '@daily'",
          '  second:',
          '    command: echo hi',
          "    cronExpresion: '@daily'",
          '    timezon: UTC',
          '',
        ].join('\n'),
      );
      const result = await h.cli(['apply', '-f', typos]);
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'orbit: jobs.first.comand is not an accepted field (did you mean command?); jobs.first.command is required; ' +
          'jobs.second.cronExpresion is not an accepted field (did you mean cronExpression?); ' +
          'jobs.second.timezon is not an accepted field (did you mean timezone?); jobs.second.cronExpression is required\n',
      });
      expect(await storedJobs()).toEqual(before);
    });

    it('the refusals of the domain are reported for every entry too', async () => {
      const bad = h.file('two-bad.yaml', {
        jobs: {
          early: { command: 'x', cronExpression: 'not a cron' },
          late: { command: 'x', cronExpression: '@daily', timezone: 'Mars/Olympus' },
        },
      });
      const result = await h.cli(['apply', '-f', bad, '--dry-run']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^orbit: jobs\.early: cronExpression .*; jobs\.late: timezone .*\n$/);
    });

    it('export, then apply to a fresh Orbit, gives the same jobs', async () => {
      const exported = await h.cli(['export', '-o', join(h.home, 'exported.yaml')]);
      expect(exported.code).toBe(0);
      // the export holds the channel's URL as a placeholder, filled in from the environment
      const env = { ORBIT_CHANNEL_OPS_URL: CHANNELS.ops.url };
      const result = await h.cli(['apply', '-f', join(h.home, 'exported.yaml')], env, { url: h.fresh.url });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Applied: 4 to create');
      expect(await h.settings(h.fresh)).toEqual(await h.settings());
      // back to where it came from: nothing changes, but the job made by hand is now the file's
      const back = await h.cli(['apply', '-f', join(h.home, 'exported.yaml')], env);
      expect(back.stdout).toContain('~ adopt jobs.by-hand\n');
      expect(back.stdout).toContain('0 to create, 0 to update, 1 to adopt, 0 to delete, 3 unchanged');
    });

    it('export without -o prints the file, under the schema comment for editors', async () => {
      const result = await h.cli(['export']);
      expect(result.code).toBe(0);
      expect(result.stdout.split('\n')[0]).toBe(
        `# yaml-language-server: $schema=${h.orbit.url}/schemas/orbit-file.json`,
      );
      expect(parse(result.stdout)).toEqual(parse(readFileSync(join(h.home, 'exported.yaml'), 'utf8')));
    });
  });

  describe('${NAME} in an orbit file', () => {
    /** As stored: the API may mask a URL, which can hold a secret. */
    const storedUrl = async (channel: string) =>
      (
        (await h.orbit.t.db.sql(`SELECT settings->>'url' AS url FROM channels WHERE name = $1`, [channel])).rows[0] as {
          url: string;
        }
      ).url;
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

    it("fills a channel's secret and URL from the environment, and nothing else: a command keeps its ${X}", async () => {
      const path = h.file(
        'placeholders.yaml',
        [
          'channels:',
          '  hook:',
          '    type: webhook',
          '    url: http://127.0.0.1:9/${HOOK_PATH}',
          '    secret: ${HOOK_SECRET}',
          'jobs:',
          '  shell-vars:',
          '    command: echo "${HOME} $${HOME} ${HOOK_SECRET}"',
          "    cronExpression: '@yearly'",
          '',
        ].join('\n'),
      );
      const result = await h.cli(['apply', '-f', path], { HOOK_PATH: 'alerts', HOOK_SECRET: secret });
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect((await h.settings())['shell-vars']?.command).toBe('echo "${HOME} $${HOME} ${HOOK_SECRET}"');
      expect(await storedUrl('hook')).toBe('http://127.0.0.1:9/alerts');
      // the secret is write-only: applying the same values again changes nothing, another one would
      const again = await h.cli(['apply', '-f', path, '--dry-run'], { HOOK_PATH: 'alerts', HOOK_SECRET: secret });
      expect(again.stdout).toContain('  unchanged channels.hook\n');
      const other = await h.cli(['apply', '-f', path, '--dry-run'], {
        HOOK_PATH: 'alerts',
        HOOK_SECRET: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      });
      expect(other.stdout).toContain('~ update channels.hook\n      secret: "(secret)" → "(secret)"\n');
    });

    it('$${ is a literal ${ where values are filled in', async () => {
      const path = h.file(
        'escaped.yaml',
        'channels:\n  escaped:\n    type: webhook\n    url: http://127.0.0.1:9/$${HOME}\n',
      );
      const result = await h.cli(['apply', '-f', path]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(await storedUrl('escaped')).toBe(new URL('http://127.0.0.1:9/${HOME}').href);
    });

    it('a variable that is not set is refused, naming the field, before anything is sent', async () => {
      const path = h.file('unset.yaml', 'channels:\n  unset:\n    type: webhook\n    url: http://x/${NOT_SET_HERE}\n');
      const result = await h.cli(['apply', '-f', path]);
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: 'orbit: channels.unset.url: the environment variable NOT_SET_HERE is not set\n',
      });
    });
  });
}
