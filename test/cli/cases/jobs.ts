import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { insertJob } from '../../support/test-database.js';
import type { Body, Harness } from '../harness.js';
import { ranArgs } from '../support.js';

export function jobsCases(h: Harness): void {
  const stored = async (name: string) => (await h.settings())[name];
  const idOf = async (name: string) => {
    const { items } = (await h.api().get(`/jobs?name=${name}`).expect(200)).body as { items: Body[] };
    return String(items.find((job) => job.name === name)!.id);
  };

  describe('jobs create and edit: --set reads each value as its field’s type', () => {
    it('the README’s own example: text for strings (@hourly), a number for maxRetries', async () => {
      const result = await h.cli([
        'jobs',
        'create',
        'report-cli',
        '--set',
        'command=./report.sh',
        '--set',
        'cronExpression=@hourly',
        '--set',
        'maxRetries=2',
      ]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^Created job 'report-cli' in the team default \([0-9a-f-]{36}\)\n$/);
      expect(await stored('report-cli')).toMatchObject({
        command: './report.sh',
        cronExpression: '@hourly',
        maxRetries: 2,
      });
    });

    it('a string field takes any text as it is: a cron with * and /, a command that reads as a boolean or YAML', async () => {
      const result = await h.cli([
        'jobs',
        'create',
        '--set',
        'name=every-five',
        '--set',
        'command=true',
        '--set',
        'cronExpression=*/5 * * * *',
        '--set',
        'timezone=Europe/Berlin',
        '--set',
        'description=Every five minutes: yes',
      ]);
      expect(result.code).toBe(0);
      expect(await stored('every-five')).toMatchObject({
        command: 'true',
        cronExpression: '*/5 * * * *',
        timezone: 'Europe/Berlin',
        description: 'Every five minutes: yes',
      });
      await h.cli(['jobs', 'edit', 'every-five', '--set', 'command=[a, b]: {x}']);
      expect((await stored('every-five'))?.command).toBe('[a, b]: {x}');
    });

    it('booleans, lists and objects (as YAML or JSON), and null where a field takes it', async () => {
      const result = await h.cli([
        'jobs',
        'edit',
        'every-five',
        '--set',
        'enabled=false',
        '--set',
        'workerSelector={region: eu}',
        '--set',
        'alerts=[]',
        '--set',
        'cronExpression=null',
        '--set',
        'priority=-3',
      ]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toBe(
        "Updated job 'every-five': enabled, workerSelector, alerts, cronExpression, priority\n",
      );
      expect(await stored('every-five')).toMatchObject({
        enabled: false,
        workerSelector: { region: 'eu' },
        alerts: [],
        cronExpression: null,
        priority: -3,
      });
      await h.cli(['jobs', 'edit', 'every-five', '--set', 'workerSelector={"region": "us"}']);
      expect((await stored('every-five'))?.workerSelector).toEqual({ region: 'us' });
    });

    it.each([
      ['maxRetries=two', 'orbit: --set maxRetries=two: maxRetries takes a number\n'],
      ['enabled=yes', 'orbit: --set enabled=yes: enabled takes true or false\n'],
      ['maxConcurrent=', 'orbit: --set maxConcurrent=: maxConcurrent takes a number (or null)\n'],
      [
        'workerSelector=[eu]',
        `orbit: --set workerSelector=[eu]: workerSelector takes an object in YAML or JSON, such as '{key: value}' or '{"key": "value"}'\n`,
      ],
      ['comand=true', 'orbit: --set comand: there is no such field (did you mean command?)\n'],
      ['command', "orbit: 'command' is not NAME=value\n"],
    ])('a value that does not fit its field is refused, naming it: %s', async (pair, message) => {
      const before = await stored('every-five');
      expect(await h.cli(['jobs', 'edit', 'every-five', '--set', pair])).toEqual({
        code: 1,
        stdout: '',
        stderr: message,
      });
      expect(await stored('every-five')).toEqual(before);
    });

    it('-f takes the fields from a YAML file; --set wins over it; the API’s refusal is printed', async () => {
      const path = h.file('job.yaml', { command: 'echo from the file', cronExpression: '@daily', maxRetries: 1 });
      const created = await h.cli(['jobs', 'create', 'from-file', '-f', path, '--set', 'maxRetries=4']);
      expect(created.code).toBe(0);
      expect(await stored('from-file')).toMatchObject({ command: 'echo from the file', maxRetries: 4 });
      const edited = await h.cli([
        'jobs',
        'edit',
        'from-file',
        '--file',
        h.file('fields.yaml', { timeoutSeconds: 90 }),
      ]);
      expect(edited.stdout).toBe("Updated job 'from-file': timeoutSeconds\n");
      const refused = await h.cli(['jobs', 'create', 'from-file', '-f', path]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^orbit: .*from-file.*\n$/);
    });

    it('jobs edit with neither --set nor -f, and no terminal for an editor, says how to give the changes', async () => {
      expect(await h.cli(['jobs', 'edit', 'from-file'], { EDITOR: 'vi' })).toEqual({
        code: 1,
        stdout: '',
        stderr: 'orbit: Give the changes with --set or -f (or set $EDITOR)\n',
      });
    });
  });

  describe('jobs edit in $EDITOR', () => {
    it('with neither --set nor -f, on a terminal, it opens the job in $EDITOR and sends the fields that changed', async () => {
      const editor = `sed -i 's/^timeoutSeconds: .*/timeoutSeconds: 77/'`;
      const args = ['jobs', 'edit', 'from-file'];
      ranArgs.push(args);
      const command = [process.execPath, h.entry, ...args].join(' ');
      // script(1) gives the CLI a terminal, as a person at a shell has
      const { stdout } = await promisify(execFile)('script', ['-qec', command, '/dev/null'], {
        env: { ...h.env({ EDITOR: editor }), PATH: process.env.PATH ?? '' },
      });
      expect(stdout).toContain("Updated job 'from-file': timeoutSeconds");
      expect((await stored('from-file'))?.timeoutSeconds).toBe(77);
    });
  });

  describe('jobs list, get, pause, resume, delete', () => {
    it('jobs list is a table under headers, --name picks by part of the name', async () => {
      const list = await h.cli(['jobs', 'list', '--name', 'from-']);
      expect(list.code).toBe(0);
      const [header, row, end] = list.stdout.split('\n');
      expect(header).toMatch(/^NAME\s+TEAM\s+SCHEDULE\s+TIMEZONE\s+ENABLED\s+NEXT RUN\s+LAST RUN$/);
      expect(row).toMatch(/^from-file\s+default\s+@daily\s+UTC\s+yes\s+in \d+ (h|min|s)\s+-$/);
      expect(end).toBe('');
    });

    it('jobs get shows every field, with no space at the end of a line', async () => {
      const result = await h.cli(['jobs', 'get', 'from-file']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /^id\s+[0-9a-f-]{36}\nteam\s+default\nname\s+from-file\ndescription\ncommand\s+echo from the file\n/,
      );
      expect(result.stdout).not.toMatch(/[ \t]$/m);
      const json = JSON.parse((await h.cli(['jobs', 'get', 'from-file', '--json'])).stdout) as Body;
      expect(json).toMatchObject({ name: 'from-file', maxRetries: 4, timeoutSeconds: 77 });
    });

    it('a job is named by its name, its id, or the start of its id; a start two ids share lists both', async () => {
      const id = await idOf('from-file');
      expect((await h.cli(['jobs', 'get', id])).stdout).toContain('from-file');
      expect((await h.cli(['jobs', 'get', id.slice(0, 8)])).stdout).toContain('from-file');
      await insertJob(h.orbit.t.db, { id: 'feed0001-0000-4000-8000-000000000001', name: 'twin-a' });
      await insertJob(h.orbit.t.db, { id: 'feed0002-0000-4000-8000-000000000002', name: 'twin-b' });
      const ambiguous = await h.cli(['jobs', 'pause', 'feed']);
      expect(ambiguous.code).toBe(1);
      const [first, ...candidates] = ambiguous.stderr.trimEnd().split('\n');
      expect(first).toBe("orbit: The id prefix 'feed' is ambiguous; it begins the ids of:");
      expect(candidates.sort()).toEqual([
        '  feed0001-0000-4000-8000-000000000001  twin-a',
        '  feed0002-0000-4000-8000-000000000002  twin-b',
      ]);
      expect((await h.cli(['jobs', 'get', 'nothing-by-this-name'])).stderr).toBe(
        "orbit: There is no job named 'nothing-by-this-name'\n",
      );
      expect((await h.cli(['jobs', 'get', randomUUID().slice(0, 8)])).stderr).toMatch(
        /^orbit: There is no job named '[0-9a-f]{8}', nor one whose id begins so\n$/,
      );
    });

    it('pause stops the schedule firing, resume lets it fire again, delete removes the job', async () => {
      expect((await h.cli(['jobs', 'pause', 'from-file'])).stdout).toBe("Paused job 'from-file'\n");
      expect((await stored('from-file'))?.enabled).toBe(false);
      const resumed = JSON.parse((await h.cli(['jobs', 'resume', 'from-file', '--json'])).stdout) as Body;
      expect(resumed).toMatchObject({ name: 'from-file', enabled: true });
      const deleted = JSON.parse((await h.cli(['jobs', 'delete', 'from-file', '--json'])).stdout) as Body;
      expect(deleted).toMatchObject({ name: 'from-file', deleted: true });
      expect(await stored('from-file')).toBeUndefined();
    });
  });
}
