import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page } from 'playwright-core';
import request from 'supertest';
import { WorkerService } from '../../src/runtime/application/worker.service.js';
import { ORBIT_VERSION } from '../../src/shared/orbit-version.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { accessibilityProblems, launchBrowser, openTab, PageTrouble, signIn } from './browser.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are loosely typed JSON
type Body = Record<string, any>;

/** Polls the locator's text until it matches; fails naming what it last saw. */
async function textOf(locator: Locator, pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  let last = '';
  try {
    return await waitFor(
      async () => {
        last = (await locator.textContent({ timeout: timeoutMs })) ?? '';
        return pattern.test(last) ? last : undefined;
      },
      `${pattern} in ${locator.toString()}`,
      timeoutMs,
      100,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; it last read: ${JSON.stringify(last.slice(0, 300))}`, {
      cause: error,
    });
  }
}

/**
 * What a newcomer found on the dashboard, each fixed: the Overview's failures by job and counted
 * in runs, how a run ended in words (no output, who cancelled it, a worker's shutdown), no empty
 * fire times, the refusal of an admin page to a viewer, and what each worker runs now.
 */
describe('the dashboard as a newcomer reads it', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let trouble: PageTrouble;
  let baseUrl: string;
  const api = () => request(t.app.getHttpServer());

  async function createJob(body: Body): Promise<Body> {
    return (
      await api()
        .post('/jobs')
        .send({ cronExpression: null, ...body })
        .expect(201)
    ).body as Body;
  }

  async function runNow(jobId: string, body: Body = {}): Promise<Body> {
    return (await api().post(`/jobs/${jobId}/executions`).send(body).expect(201)).body as Body;
  }

  async function execution(id: string): Promise<Body> {
    return (await api().get(`/executions/${id}`).expect(200)).body as Body;
  }

  async function reaches(id: string, statuses: string[]): Promise<Body> {
    return waitFor(
      async () => {
        const e = await execution(id);
        return statuses.includes(e.status as string) ? e : undefined;
      },
      `execution ${id} to be ${statuses.join(' or ')}`,
    );
  }

  /** A run and its retries, until the last attempt ended. */
  async function runToTheEnd(jobId: string): Promise<Body> {
    let attempt = await reaches((await runNow(jobId)).id as string, ['SUCCEEDED', 'FAILED', 'CANCELLED']);
    for (;;) {
      const retries = (await api().get('/executions').query({ retryOf: attempt.id }).expect(200)).body.items as Body[];
      if (retries.length === 0) return attempt;
      attempt = await reaches(retries[0]!.id as string, ['SUCCEEDED', 'FAILED', 'CANCELLED']);
    }
  }

  async function token(name: string, role: string): Promise<string> {
    return ((await api().post('/tokens').send({ name, role }).expect(201)).body as Body).token as string;
  }

  /** The sentence that says how the run on the page ended. */
  const ending = () => page.getByRole('region', { name: 'How it ended' }).locator('p');

  async function expectAccessible(tab: Page = page): Promise<void> {
    expect({ url: tab.url(), problems: await accessibilityProblems(tab) }).toEqual({ url: tab.url(), problems: [] });
  }

  beforeAll(async () => {
    t = await createTestApp({
      role: 'all',
      env: { ORBIT_RETRY_BACKOFF_BASE_MS: '0', ORBIT_RETRY_BACKOFF_MAX_MS: '0', ORBIT_WORKER_LABELS: 'zone=findings' },
    });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchBrowser();
    ({ page, trouble } = await openTab(browser, baseUrl));
    await signIn(page, TEST_ADMIN_TOKEN);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => {
    expect(trouble).toEqual({ errors: [], dialogs: [] });
  });

  it('the Overview names the job of each recent failure, and counts failed runs, not their attempts', async () => {
    const retried = await createJob({ name: 'findings-retried', command: 'exit 3', maxRetries: 1 });
    const twice = await createJob({ name: 'findings-twice', command: 'exit 4', maxRetries: 1 });
    for (let i = 0; i < 3; i++) await runToTheEnd(retried.id as string);
    for (let i = 0; i < 2; i++) await runToTheEnd(twice.id as string);

    await page.getByRole('link', { name: 'Overview' }).click();
    const problems = page.getByRole('region', { name: 'Problems' });
    await textOf(problems, /findings-retried failed its last 3 runs/);
    // 4 failed attempts, 2 runs: not repeatedly
    expect(await problems.textContent()).not.toContain('findings-twice');

    const failures = page.getByRole('table', { name: 'Recent failures' });
    const row = failures.getByRole('row').filter({ hasText: 'exit 3' }).first();
    const link = row.getByRole('link', { name: 'findings-retried' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`/ui/jobs/${retried.id}`);
    await failures.getByRole('link', { name: 'findings-twice' }).first().waitFor();
    await expectAccessible();
  });

  it('a run that printed nothing says "Nothing yet" while it runs and "No output" once it ended', async () => {
    const quiet = await createJob({ name: 'findings-quiet', command: 'sleep 30' });
    const running = await runNow(quiet.id as string);
    await reaches(running.id as string, ['RUNNING']);
    await page.goto(`/ui/executions/${running.id}`);
    const output = page.getByRole('region', { name: 'Output' });
    await textOf(output, /Standard output \(stdout\)Nothing yet\./);
    await api().post(`/executions/${running.id}/cancel`).expect(200);
    await textOf(output, /Standard output \(stdout\)No output\.Standard error \(stderr\)No output\./);
    expect(await output.textContent()).not.toContain('Nothing yet');
  });

  it('a cancelled run says who cancelled it and when: a caller, the deletion of its job, or Orbit replacing it', async () => {
    const operator = await token('findings-operator', 'operator');
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const waiting = await createJob({ name: 'findings-waiting', command: 'true' });
    const byCaller = await runNow(waiting.id as string, { runAt: later });
    await api().post(`/executions/${byCaller.id}/cancel`).set('Authorization', `Bearer ${operator}`).expect(200);
    const cancelled = await execution(byCaller.id as string);
    await page.goto(`/ui/executions/${byCaller.id}`);
    await textOf(ending(), /^Cancelled by findings-operator at /);
    expect(await ending().locator('time').getAttribute('datetime')).toBe(cancelled.finishedAt);
    await expectAccessible();

    const doomed = await createJob({ name: 'findings-deleted', command: 'true' });
    const byDeletion = await runNow(doomed.id as string, { runAt: later });
    await api().delete(`/jobs/${doomed.id}`).expect(204);
    await page.goto(`/ui/executions/${byDeletion.id}`);
    await textOf(ending(), /^Cancelled at .+ when ORBIT_ADMIN_TOKEN deleted its job\.$/);

    // every second a slot; the next one cancels the run of the one before (REPLACE)
    const replaced = await createJob({
      name: 'findings-replaced',
      command: 'sleep 30',
      cronExpression: '* * * * * *',
      concurrencyPolicy: 'REPLACE',
    });
    const first = await waitFor(async () => {
      const items = (await api().get('/executions').query({ jobId: replaced.id, status: 'CANCELLED' }).expect(200)).body
        .items as Body[];
      return items[0];
    }, 'a run of findings-replaced cancelled by the next slot');
    await api().post(`/jobs/${replaced.id}/pause`).send({}).expect(200);
    await page.goto(`/ui/executions/${first.id}`);
    await textOf(ending(), /^Cancelled by Orbit at .+: the run of the next slot replaced it \(REPLACE\)\.$/);
    const replacing = (await api().get(`/executions/${first.id}/cancellation`).expect(200)).body as Body;
    expect(await ending().getByRole('link', { name: 'the run of the next slot' }).getAttribute('href')).toBe(
      `/ui/executions/${replacing.replacedBy}`,
    );
    for (const active of (await api().get('/executions').query({ jobId: replaced.id, status: 'RUNNING' })).body
      .items as Body[]) {
      await api().post(`/executions/${active.id}/cancel`);
    }
  });

  it('a cancelled run says who cancelled it from the run itself, and who pruned its job by an apply', async () => {
    const applier = await token('findings-applier', 'admin');
    const apply = (jobs: Body, prune: boolean) =>
      api().post('/apply').set('Authorization', `Bearer ${applier}`).send({ file: { jobs }, prune }).expect(200);
    await apply({ 'findings-pruned': { command: 'true', cronExpression: '0 3 1 1 *' } }, false);
    const [pruned] = (await api().get('/jobs').query({ name: 'findings-pruned' }).expect(200)).body.items as Body[];
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const byPrune = await runNow(pruned!.id as string, { runAt: later });
    await apply({}, true);
    const byCaller = await runNow((await createJob({ name: 'findings-kept', command: 'true' })).id as string, {
      runAt: later,
    });
    await api().post(`/executions/${byCaller.id}/cancel`).expect(200);

    // the run says who: the page needs no other answer (the audit trail names no job that an apply deletes)
    await page.route('**/executions/*/cancellation', (route) => route.abort());
    try {
      await page.goto(`/ui/executions/${byPrune.id}`);
      await textOf(ending(), /^Cancelled at .+ when findings-applier deleted its job\.$/);
      await page.goto(`/ui/executions/${byCaller.id}`);
      await textOf(ending(), /^Cancelled by ORBIT_ADMIN_TOKEN at /);
    } finally {
      await page.unroute('**/executions/*/cancellation');
    }
  });

  it('a run stopped when its worker shut down says so, not exit code -1 alone', async () => {
    const stopping = await createTestApp({
      db: t.db,
      role: 'worker',
      env: { ORBIT_WORKER_LABELS: 'pool=stopping', ORBIT_SHUTDOWN_GRACE_SECONDS: '0' },
    });
    let closed = false;
    try {
      const job = await createJob({
        name: 'findings-shutdown',
        command: 'sleep 30',
        workerSelector: { pool: 'stopping' },
      });
      const run = await runNow(job.id as string);
      await reaches(run.id as string, ['RUNNING']);
      await stopping.close();
      closed = true;
      const stopped = await reaches(run.id as string, ['FAILED']);
      expect(stopped).toMatchObject({ exitCode: -1, errorMessage: expect.stringMatching(/^Worker shut down/) });

      await page.goto(`/ui/jobs/${job.id}`);
      const history = page.getByRole('region', { name: 'History' });
      const row = history.getByRole('row').filter({ hasText: run.id.slice(0, 8) as string });
      await textOf(row, /FAILED.*none: Worker shut down: the command was stopped after the 0s shutdown grace/);
      expect(await row.getByRole('cell').allTextContents()).not.toContain('-1');

      await page.goto(`/ui/executions/${run.id}`);
      await textOf(
        ending(),
        /^Failed at .+ without an exit code of its own: Worker shut down: the command was stopped after the 0s shutdown grace\.$/,
      );
      const fields = page.locator('dl.fields');
      await textOf(fields, /Exit codenone/);
      await expectAccessible();
    } finally {
      if (!closed) await stopping.close();
    }
  });

  it('a job without a schedule shows no fire times, on its page and in its form; one run is "the last run"', async () => {
    const manual = await createJob({ name: 'findings-manual', command: 'true' });
    await runToTheEnd(manual.id as string);
    await page.goto(`/ui/jobs/${manual.id}`);
    await textOf(page.getByRole('region', { name: 'Definition' }), /Scheduleno schedule/);
    await textOf(page.locator('.duration-chart figcaption'), /^How long the last run took/);
    expect(await page.getByRole('heading', { name: 'Next fire times' }).count()).toBe(0);

    await page.goto(`/ui/jobs/${manual.id}/edit`);
    await page.getByRole('checkbox', { name: 'No schedule' }).waitFor();
    expect(await page.getByRole('checkbox', { name: 'No schedule' }).isChecked()).toBe(true);
    expect(await page.getByRole('heading', { name: 'Next fire times' }).count()).toBe(0);
    await page.getByRole('checkbox', { name: 'No schedule' }).uncheck();
    await page.getByRole('heading', { name: 'Next fire times' }).waitFor();
  });

  it('a viewer opening an admin page by its address sees the refusal only, never the form', async () => {
    const viewer = await token('findings-viewer', 'viewer');
    const job = await createJob({ name: 'findings-admin-only', command: 'true' });
    const tab = await openTab(browser, baseUrl);
    try {
      await signIn(tab.page, viewer);
      for (const path of [
        '/tokens',
        '/audit',
        '/channels',
        '/concurrency-groups',
        '/jobs/new',
        `/jobs/${job.id}/edit`,
      ]) {
        await tab.page.goto(`/ui${path}`);
        const main = tab.page.getByRole('main');
        await textOf(main, /^Not allowed/);
        expect({ path, text: await main.textContent() }).toEqual({
          path,
          text: 'Not allowedThis page is for admins: findings-viewer is a viewer token. Go to the overview.',
        });
        expect({ path, controls: await main.locator('input, select, textarea, button, form').count() }).toEqual({
          path,
          controls: 0,
        });
      }
      await expectAccessible(tab.page);
      expect(tab.trouble).toEqual({ errors: [], dialogs: [] });
    } finally {
      await tab.context.close();
    }
  });

  it('the Workers page shows what each worker runs now, each run linked with its job, beside its labels and version', async () => {
    const job = await createJob({ name: 'findings-busy', command: 'sleep 30' });
    const run = await runNow(job.id as string);
    await reaches(run.id as string, ['RUNNING']);
    try {
      await page.getByRole('link', { name: 'Workers' }).click();
      const row = page.getByRole('row').filter({ hasText: t.app.get(WorkerService).id });
      const cell = row.getByRole('cell').filter({ hasText: 'findings-busy' });
      await cell.waitFor();
      expect(await cell.getByRole('link', { name: /findings-busy/ }).getAttribute('href')).toBe(
        `/ui/executions/${run.id}`,
      );
      await textOf(row, /zone=findings/);
      expect(await row.textContent()).toContain(ORBIT_VERSION);
      await expectAccessible();
      await api().post(`/executions/${run.id}/cancel`).expect(200);
      await waitFor(async () => ((await cell.count()) === 0 ? true : undefined), 'the cancelled run to leave the row');
    } finally {
      await api().post(`/executions/${run.id}/cancel`);
    }
  });
});
