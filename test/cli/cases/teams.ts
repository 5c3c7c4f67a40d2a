import { parse } from 'yaml';
import type { Body, Harness } from '../harness.js';

const PAYMENTS_JOBS = {
  ledger: { command: 'ledger.sh', cronExpression: '@daily' },
  invoices: { command: 'invoices.sh', cronExpression: '0 6 * * *', timezone: 'Europe/Paris' },
};

/** apply, export and jobs with --team: what lands in a team, and what a team's lists show. */
export function teamCases(h: Harness): void {
  /** The live jobs of a team, by name, as the API answers them. */
  const jobsOf = async (team: string) =>
    ((await h.api().get(`/jobs?limit=100&team=${team}`).expect(200)).body as { items: Body[] }).items
      .map((job) => `${String(job.name)} ${String(job.team)}`)
      .sort();
  /** The rows of a `jobs list` table: each row's name and team. */
  const rows = (stdout: string) =>
    stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/).slice(0, 2).join(' '))
      .sort();

  describe('teams: apply, export and jobs with --team', () => {
    let paymentsToken: string;

    beforeAll(async () => {
      await h.api().post('/teams').send({ name: 'payments' }).expect(201);
      const created = await h.api().post('/tokens').send({ name: 'payments-ci', role: 'admin', team: 'payments' });
      paymentsToken = (created.body as { token: string }).token;
      await h.job({ name: 'default-only', command: 'x', cronExpression: '@daily' });
    });

    it('apply --team payments lands the jobs in payments, and only there', async () => {
      const defaults = await jobsOf('default');
      const path = h.file('payments.yaml', { jobs: PAYMENTS_JOBS });
      const result = await h.cli(['apply', '-f', path, '--team', 'payments']);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain('Team payments:\n+ create jobs.ledger\n+ create jobs.invoices\n');
      expect(result.stdout).toContain('Applied: 2 to create, 0 to update, 0 to delete, 0 unchanged');
      expect(await jobsOf('payments')).toEqual(['invoices payments', 'ledger payments']);
      expect(await jobsOf('default')).toEqual(defaults);
    });

    it('jobs list shows each job’s team; --team shows that team’s only', async () => {
      const all = await h.cli(['jobs', 'list']);
      expect(all.stdout.split('\n')[0]).toMatch(/^NAME\s+TEAM\s+SCHEDULE\s+/);
      expect(rows(all.stdout)).toEqual(expect.arrayContaining(['default-only default', 'ledger payments']));
      const payments = await h.cli(['jobs', 'list', '--team', 'payments']);
      expect(payments.code).toBe(0);
      expect(rows(payments.stdout)).toEqual(['invoices payments', 'ledger payments']);
    });

    it("a team token's apply goes to its team without --team, and sees only that team's jobs", async () => {
      const path = h.file('payments-more.yaml', {
        jobs: { ...PAYMENTS_JOBS, refunds: { command: 'refunds.sh', cronExpression: '@hourly' } },
      });
      const result = await h.cli(['apply', '-f', path, '--dry-run'], { ORBIT_TOKEN: paymentsToken });
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^Team payments:\n/);
      expect(result.stdout).toContain('1 to create, 0 to update, 0 to delete, 2 unchanged');
      const list = await h.cli(['jobs', 'list'], { ORBIT_TOKEN: paymentsToken });
      expect(rows(list.stdout)).toEqual(['invoices payments', 'ledger payments']);
    });

    it("a file naming another team's job is refused as a name taken, and changes nothing", async () => {
      const before = await h.settings();
      const path = h.file('taken.yaml', {
        jobs: { ...PAYMENTS_JOBS, 'default-only': { command: 'mine.sh', cronExpression: '@hourly' } },
      });
      const result = await h.cli(['apply', '-f', path, '--team', 'payments', '--prune']);
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr:
          "orbit: jobs.default-only: the name 'default-only' is taken by a job of another team (job names are unique across teams)\n",
      });
      expect(await h.settings()).toEqual(before);
    });

    it('--prune with --team deletes only what the team’s applies made', async () => {
      const path = h.file('payments-smaller.yaml', { jobs: { ledger: PAYMENTS_JOBS.ledger } });
      const result = await h.cli(['apply', '-f', path, '--team', 'payments', '--prune']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('- delete jobs.invoices\n');
      expect(await jobsOf('payments')).toEqual(['ledger payments']);
      expect(await jobsOf('default')).toContain('default-only default');
    });

    it("export --team writes that team's jobs only, which apply back unchanged", async () => {
      const result = await h.cli(['export', '--team', 'payments']);
      expect(result.code).toBe(0);
      expect(parse(result.stdout)).toEqual({ channels: {}, jobs: { ledger: PAYMENTS_JOBS.ledger } });
      const path = h.file('payments-exported.yaml', result.stdout);
      const back = await h.cli(['apply', '-f', path, '--team', 'payments']);
      expect(back.stdout).toContain('0 to create, 0 to update, 0 to delete, 1 unchanged');
    });

    it('jobs create --team makes the job in that team', async () => {
      const result = await h.cli([
        'jobs',
        'create',
        'settle',
        '--team',
        'payments',
        '--set',
        'command=settle.sh',
        '--set',
        'cronExpression=@daily',
      ]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^Created job 'settle' in the team payments \([0-9a-f-]{36}\)\n$/);
      expect(await jobsOf('payments')).toEqual(['ledger payments', 'settle payments']);
    });
  });
}
