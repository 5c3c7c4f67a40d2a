import { availableParallelism } from 'node:os';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { Browser, Locator, Page, Request, Response } from 'playwright-core';
import request from 'supertest';
import { WorkerService } from '../../src/runtime/application/worker.service.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { accessibilityProblems, launchBrowser, openTab, PageTrouble, signIn } from './browser.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are loosely typed JSON
type Body = Record<string, any>;

/** Every control a viewer must not see: each would be refused (403) for its role. */
const WRITE_CONTROLS = ['New job', 'Save', 'Run now', 'Pause', 'Resume', 'Delete', 'Cancel', 'Edit'];

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

describe('the dashboard in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let trouble: PageTrouble;
  let baseUrl: string;
  /** Every request the main tab made, for the token-in-URL check and for counting re-reads. */
  const requests: Request[] = [];
  const api = () => request(t.app.getHttpServer());

  async function createJob(overrides: Body = {}): Promise<Body> {
    const res = await api()
      .post('/jobs')
      .send({
        name: `ui-${Math.random().toString(36).slice(2, 10)}`,
        command: 'true',
        cronExpression: '0 3 * * *',
        ...overrides,
      });
    expect(res.status).toBe(201);
    return res.body as Body;
  }

  async function runNow(jobId: string): Promise<Body> {
    const res = await api().post(`/jobs/${jobId}/executions`);
    expect(res.status).toBe(201);
    return res.body as Body;
  }

  async function execution(id: string): Promise<Body> {
    return (await api().get(`/executions/${id}`).expect(200)).body as Body;
  }

  async function finished(id: string): Promise<Body> {
    return waitFor(async () => {
      const e = await execution(id);
      return ['QUEUED', 'RUNNING'].includes(e.status as string) ? undefined : e;
    }, `execution ${id} to finish`);
  }

  async function expectAccessible(tab: Page): Promise<void> {
    expect({ url: tab.url(), problems: await accessibilityProblems(tab) }).toEqual({ url: tab.url(), problems: [] });
  }

  const button = (name: string) => page.getByRole('button', { name, exact: true });

  beforeAll(async () => {
    // room for the whole of a 64 KiB line and what comes before it
    t = await createTestApp({ role: 'all', env: { ORBIT_WORKER_CONCURRENCY: '4', ORBIT_OUTPUT_LIMIT_KB: '128' } });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchBrowser();
    ({ page, trouble } = await openTab(browser, baseUrl));
    page.on('request', (sent) => requests.push(sent));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('refuses an unknown token, then signs in with the admin token and shows every section', async () => {
    await page.goto('/ui/');
    await expectAccessible(page);
    await page.getByLabel('Token').fill('orbit_not-a-real-token');
    await button('Sign in').click();
    await textOf(page.getByRole('alert'), /^That token was not accepted/);

    await page.getByLabel('Token').fill(TEST_ADMIN_TOKEN);
    await button('Sign in').click();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Audit' }).waitFor();
    expect(await nav.getByRole('link').allTextContents()).toEqual([
      'Overview',
      'Jobs',
      'Workers',
      'Tokens',
      'Audit',
      'Channels',
      'Concurrency groups',
      'Teams',
    ]);
    expect(page.url()).not.toContain(TEST_ADMIN_TOKEN);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await textOf(page.getByRole('list', { name: 'At a glance' }), /1 live worker/);
    await expectAccessible(page);
  });

  it('the token stays for the tab (a reload keeps the session) and sign out forgets it', async () => {
    await page.reload();
    await page.getByRole('link', { name: 'Jobs' }).waitFor();
    expect(await page.evaluate("sessionStorage.getItem('orbit.token')")).toBe(TEST_ADMIN_TOKEN);
    expect(await page.evaluate('localStorage.length')).toBe(0);
    await button('Sign out').click();
    await page.getByLabel('Token').waitFor();
    expect(await page.evaluate("sessionStorage.getItem('orbit.token')")).toBeNull();
    // from the keyboard alone: the field has the focus it needs, Enter signs in
    await page.getByLabel('Token').focus();
    await page.keyboard.type(TEST_ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: 'Overview' }).waitFor();
  });

  it('creates a job through the form: the preview follows typing, a bad field gets the API message beside it', async () => {
    await page.getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('link', { name: 'New job' }).click();
    await page.getByLabel('Name').fill('ui-created');
    await page.getByLabel('Command').fill('echo created');
    await page.getByLabel('Time zone').fill('Europe/Berlin');
    await page.getByLabel('Cron expression').fill('0 9 * * *');
    const preview = page.getByRole('region', { name: 'Next fire times' });
    await textOf(preview, /At 09:00/);
    await waitFor(async () => ((await preview.getByRole('listitem').count()) === 5 ? true : undefined), '5 fire times');
    // shown in the browser's zone (UTC here), and in the job's
    expect(await preview.getByRole('listitem').first().textContent()).toMatch(
      /(07|08):00:00 UTC · .*09:00:00 .* in the job's time zone/,
    );
    await expectAccessible(page);

    const cron = page.getByLabel('Cron expression');
    const marked = (field: Locator) => field.getAttribute('aria-invalid').then((value) => value === 'true');
    await cron.fill('61 * * * *');
    await textOf(preview, /cron '61 \* \* \* \*' is not valid/);
    await button('Save').click();
    await textOf(page.locator('#cronExpression-error'), /^cronExpression '61 \* \* \* \*' is not valid/);
    expect(await marked(cron)).toBe(true);
    expect((await cron.getAttribute('aria-describedby'))!.split(' ')).toContain('cronExpression-error');
    expect(await marked(page.getByLabel('Name'))).toBe(false);
    await expectAccessible(page);

    await cron.fill('0 9 * * *');
    await page.getByLabel('Max retries').fill('lots');
    await button('Save').click();
    await textOf(page.locator('#maxRetries-error'), /^maxRetries must be an integer/);
    expect(await marked(cron)).toBe(false);
    expect(await marked(page.getByLabel('Max retries'))).toBe(true);

    await page.getByLabel('Max retries').fill('2');
    await button('Save').click();
    await page.getByRole('heading', { name: /Job ui-created/, level: 1 }).waitFor();
    const created = (await api().get('/jobs').query({ name: 'ui-created' })).body.items as Body[];
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ command: 'echo created', timezone: 'Europe/Berlin', maxRetries: 2 });
    await expectAccessible(page);
  });

  it('Edit changes the job and leads back to it', async () => {
    const job = (await api().get('/jobs').query({ name: 'ui-created' })).body.items[0] as Body;
    await page.goto(`/ui/jobs/${job.id}`);
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    const command = page.getByLabel('Command');
    await waitFor(async () => ((await command.inputValue()) === 'echo created' ? true : undefined), 'the form filled');
    await command.fill('echo edited');
    await page.getByLabel('Timeout (seconds)').fill('90');
    await page.getByLabel('Description').fill('Sends the morning report\nask #ops');
    await button('Save').click();
    const definition = page.getByRole('region', { name: 'Definition' });
    await textOf(definition, /echo edited[\s\S]*90 s[\s\S]*Description\s*Sends the morning report\nask #ops/);
    expect((await api().get(`/jobs/${job.id}`)).body).toMatchObject({
      command: 'echo edited',
      timeoutSeconds: 90,
      description: 'Sends the morning report\nask #ops',
    });
  });

  it('a name taken already is named beside Name', async () => {
    await page.goto('/ui/jobs/new');
    await page.getByLabel('Name').fill('ui-created');
    await page.getByLabel('Command').fill('true');
    await page.getByLabel('Cron expression').fill('@daily');
    await button('Save').click();
    await textOf(page.locator('#name-error'), /A job named 'ui-created' already exists/);
  });

  it('a save with several bad fields names each beside its own', async () => {
    await page.goto('/ui/jobs/new');
    await page.getByLabel('Name').fill('ui-several');
    await page.getByLabel('Command').fill('true');
    await page.getByLabel('Cron expression').fill('@daily');
    await page.getByLabel('Max retries').fill('lots');
    await page.getByLabel('Timeout (seconds)').fill('long');
    await button('Save').click();
    await textOf(page.locator('#maxRetries-error'), /^maxRetries must be an integer from 0 to 100$/);
    await textOf(page.locator('#timeoutSeconds-error'), /^timeoutSeconds must be an integer from 1 to 604800$/);
    expect(await page.getByRole('alert').textContent()).toBe('');
  });

  it('Run now opens the run and follows its output live, stdout and stderr apart, until it ends', async () => {
    const job = await createJob({
      command: 'echo first; sleep 1.5; echo second; echo warned >&2; sleep 1.5; echo third',
    });
    await page.goto(`/ui/jobs/${job.id}`);
    await button('Run now').click();
    await page.waitForURL(/\/ui\/executions\/[0-9a-f-]{36}$/);
    await page.getByRole('link', { name: job.name as string }).waitFor(); // the run names its job
    const output = page.getByRole('region', { name: 'Output' });
    const stdout = output.getByLabel('Standard output (stdout)');
    await textOf(stdout, /first/);
    // seen while it still runs: the page follows the output, it is not loaded once at the end
    expect(await output.textContent()).toContain('Following while it runs');
    expect(await stdout.textContent()).not.toContain('third');
    await textOf(output.getByLabel('Standard error (stderr)'), /warned/);
    await textOf(stdout, /first\nsecond\nthird/, 20_000);
    await textOf(page.getByRole('heading', { level: 1 }), /SUCCEEDED/);
    expect(await stdout.textContent()).not.toContain('warned');
    expect(await output.textContent()).not.toContain('Following while it runs');
    await expectAccessible(page);
  });

  it('Cancel stops a running run', async () => {
    const job = await createJob({ command: 'echo started; sleep 60' });
    const run = await runNow(job.id);
    await page.goto(`/ui/executions/${run.id}`);
    await textOf(page.getByRole('region', { name: 'Output' }), /started/);
    await button('Cancel').click();
    await textOf(page.getByRole('heading', { level: 1 }), /CANCELLED/);
    expect((await finished(run.id as string)).status).toBe('CANCELLED');
    expect(await button('Cancel').count()).toBe(0);
  });

  it('Pause and Resume on the job page change whether it fires', async () => {
    const job = await createJob();
    await page.goto(`/ui/jobs/${job.id}`);
    await button('Pause').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Pause', exact: true }).click();
    await button('Resume').waitFor();
    expect((await api().get(`/jobs/${job.id}`)).body).toMatchObject({ enabled: false, nextRunAt: null });
    await button('Resume').click();
    await button('Pause').waitFor();
    expect((await api().get(`/jobs/${job.id}`)).body).toMatchObject({ enabled: true, nextRunAt: expect.any(String) });
  });

  it('pauses several jobs at once from the list, and runs them now', async () => {
    const jobs = [
      await createJob({ name: 'bulk-a' }),
      await createJob({ name: 'bulk-b' }),
      await createJob({ name: 'bulk-c' }),
    ];
    await page.goto('/ui/jobs');
    await page.getByLabel('Search by name').fill('bulk-');
    await button('Search').click();
    await page.waitForURL(/\?name=bulk-$/);
    for (const name of ['bulk-a', 'bulk-c']) await page.getByLabel(`Select ${name}`).check();
    await button('Pause').click();
    await textOf(page.getByRole('status').first(), /Paused 2 jobs/);
    const enabled = async () =>
      Object.fromEntries(
        await Promise.all(jobs.map(async (j) => [j.name, (await api().get(`/jobs/${j.id}`)).body.enabled] as const)),
      );
    expect(await enabled()).toEqual({ 'bulk-a': false, 'bulk-b': true, 'bulk-c': false });
    await waitFor(
      async () => ((await page.getByText('paused', { exact: true }).count()) >= 2 ? true : undefined),
      'tags',
    );
    await expectAccessible(page);

    for (const name of ['bulk-a', 'bulk-b']) await page.getByLabel(`Select ${name}`).check();
    await button('Run now').click();
    await textOf(page.getByRole('status').first(), /Queued a run of 2 jobs/);
    const runs = await Promise.all(
      jobs.map(async (j) => (await api().get('/executions').query({ jobId: j.id })).body.items.length),
    );
    expect(runs).toEqual([1, 1, 0]);
  });

  it('filters and paging live in the address, so Back returns to the previous list', async () => {
    await page.goto('/ui/jobs');
    await page.getByLabel('Show').selectOption('false');
    await page.waitForURL(/\?enabled=false$/);
    // the address changes before the page renders the filtered list: wait for that list
    await textOf(page.getByRole('table'), /^(?![\s\S]*ui-created)[\s\S]*bulk-a/);
    await page.getByRole('link', { name: 'bulk-a' }).click();
    await page.getByRole('heading', { name: /Job bulk-a/ }).waitFor();
    await page.goBack();
    await page.waitForURL(/\/ui\/jobs\?enabled=false$/);
    // the address changes before the list page renders again: wait for its filter, not the address
    const show = page.getByLabel('Show');
    await waitFor(
      async () => ((await show.inputValue()) === 'false' ? true : undefined),
      'the filter as the address says',
    );
    await textOf(page.getByRole('table'), /bulk-a/);
  });

  it('a filter chosen the instant the page appears is applied, though the page had not finished starting', async () => {
    const paused = await createJob({ name: 'instant-paused' });
    await api().post(`/jobs/${paused.id}/pause`).send({}).expect(200);
    await createJob({ name: 'instant-enabled' });
    const tab = await openTab(browser, baseUrl);
    try {
      await signIn(tab.page, TEST_ADMIN_TOKEN);
      // the choice is made as the select is added to the page: before the page's effects can run
      await tab.page.addInitScript(`
        new MutationObserver((_, observer) => {
          const select = document.querySelector('#job-filter');
          if (!select) return;
          observer.disconnect();
          select.value = 'false';
          select.dispatchEvent(new Event('change', { bubbles: true }));
        }).observe(document, { childList: true, subtree: true });
      `);
      await tab.page.goto('/ui/jobs');
      await tab.page.waitForURL(/\?enabled=false$/);
      await textOf(tab.page.getByRole('table'), /^(?![\s\S]*instant-enabled)[\s\S]*instant-paused/);
    } finally {
      await tab.context.close();
    }
  });

  it('Delete asks first; keeping it keeps it, confirming deletes it', async () => {
    const job = await createJob({ name: 'ui-doomed' });
    await page.goto(`/ui/jobs/${job.id}`);
    await button('Delete').click();
    const dialog = page.getByRole('dialog', { name: 'Delete ui-doomed?' });
    await dialog.waitFor();
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Keep it' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await api().get(`/jobs/${job.id}`)).status).toBe(200);

    await button('Delete').click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/ui\/jobs$/);
    expect((await api().get(`/jobs/${job.id}`)).status).toBe(404);
  });

  it('the workers page lists the live workers, each with the launcher that starts its commands', async () => {
    const spawning = await createTestApp({ db: t.db, role: 'worker', env: { ORBIT_LAUNCHER: 'node' } });
    try {
      await page.getByRole('link', { name: 'Workers' }).click();
      await textOf(page.getByRole('table'), /live\s*\d+ of 4/);
      await page.getByRole('columnheader', { name: 'Launcher' }).waitFor();
      const launcherOf = async (app: TestApp) => {
        const row = page.getByRole('row').filter({ hasText: app.app.get(WorkerService).id });
        await row.waitFor();
        return row.getByRole('cell', { name: /^(native|Node spawner)$/ }).textContent();
      };
      expect({ native: await launcherOf(t), node: await launcherOf(spawning) }).toEqual({
        native: 'native',
        node: 'Node spawner',
      });
      // each worker's host load beside the CPUs it may use
      const cpus = availableParallelism();
      const load = page
        .getByRole('row')
        .filter({ hasText: t.app.get(WorkerService).id })
        .getByRole('cell', { name: new RegExp(`^\\d+\\.\\d\\d on ${cpus} CPUs?$`) });
      await load.waitFor();
      await expectAccessible(page);
    } finally {
      await spawning.close();
    }
  });

  it('the tokens and audit pages list what the API holds', async () => {
    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByLabel('Name').fill('ui-issued');
    await page.getByLabel('Role').selectOption('operator');
    await button('Issue token').click();
    const secret = await textOf(page.getByRole('status'), /orbit_/);
    expect(secret).toContain('ui-issued');
    await textOf(page.getByRole('table'), /ui-issued\s*operator/);
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Audit' }).click();
    await textOf(page.getByRole('table'), /token\.created/);
    await expectAccessible(page);
  });

  it('a viewer sees every page but no control that would be refused', async () => {
    const viewer = (await api().post('/tokens').send({ name: 'ui-viewer', role: 'viewer' }).expect(201)).body as Body;
    const job = await createJob({ name: 'ui-viewed', command: 'sleep 30' });
    const run = await runNow(job.id);
    const tab = await openTab(browser, baseUrl);
    try {
      await signIn(tab.page, viewer.token);
      const nav = tab.page.getByRole('navigation', { name: 'Main' });
      expect(await nav.getByRole('link').allTextContents()).toEqual(['Overview', 'Jobs', 'Workers']);
      const visible = async () => {
        const found: string[] = [];
        for (const name of WRITE_CONTROLS) {
          if ((await tab.page.getByRole('button', { name, exact: true }).count()) > 0) found.push(name);
          if ((await tab.page.getByRole('link', { name, exact: true }).count()) > 0) found.push(name);
        }
        return found.concat((await tab.page.getByRole('checkbox').count()) > 0 ? ['checkboxes'] : []);
      };
      await tab.page.getByRole('link', { name: 'Jobs' }).click();
      await textOf(tab.page.getByRole('table'), /ui-viewed/);
      expect(await visible()).toEqual([]);
      await tab.page.getByRole('link', { name: 'ui-viewed' }).click();
      await textOf(tab.page.getByRole('region', { name: 'Definition' }), /sleep 30/);
      expect(await visible()).toEqual([]);
      await tab.page.goto(`/ui/executions/${run.id}`);
      await textOf(tab.page.getByRole('heading', { level: 1 }), /RUNNING/);
      expect(await visible()).toEqual([]);
      await expectAccessible(tab.page);
      expect(tab.trouble).toEqual({ errors: [], dialogs: [] });
    } finally {
      await tab.context.close();
      await api().post(`/executions/${run.id}/cancel`);
    }
  });

  it('hostile names and output are shown as text and run nothing', async () => {
    const name = '<img src=x onerror=alert(1)>';
    const job = await createJob({
      name,
      command:
        "printf '<script>alert(2)</script>\\n<img src=y onerror=alert(3)>\\n\\033[31mred\\033[0m plain \\033[1;32mbold green\\033[0m\\n'; " +
        "head -c 65536 /dev/zero | tr '\\0' x; echo; printf '<b>err</b>\\n' >&2",
    });
    const run = await runNow(job.id);
    expect((await finished(run.id as string)).status).toBe('SUCCEEDED');

    await page.goto('/ui/jobs');
    await page.getByRole('link', { name }).waitFor();
    await page.getByRole('link', { name }).click();
    await page.getByRole('heading', { name: `Job ${name}` }).waitFor();
    await page.goto(`/ui/executions/${run.id}`);
    const output = page.getByRole('region', { name: 'Output' });
    const stdout = await textOf(output.getByLabel('Standard output (stdout)'), /x{65536}/);
    expect(stdout).toContain('<script>alert(2)</script>\n<img src=y onerror=alert(3)>\nred plain bold green\n');
    expect(stdout).not.toContain('\u001b');
    expect(await output.locator('.ansi-red').allTextContents()).toEqual(['red']);
    expect(await output.locator('.ansi-bright-green.ansi-bold, .ansi-green.ansi-bold').allTextContents()).toEqual([
      'bold green',
    ]);
    await textOf(output.getByLabel('Standard error (stderr)'), /<b>err<\/b>/);

    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('main b').count()).toBe(0);
    const scripts = await page.locator('script').evaluateAll((found) => found.map((s) => s.getAttribute('src')));
    expect(scripts).toEqual([expect.stringMatching(/^\/ui\/assets\/index-[\w-]+\.js$/)]);
    // the 64 KiB line wraps inside the page instead of widening it
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await expectAccessible(page);
    expect(trouble.dialogs).toEqual([]);
  });

  describe('live from the event stream', () => {
    /** A mark on the window: gone if the page reloaded. */
    const mark = () => page.evaluate('window.orbitMark = 1');
    const stillMarked = () => page.evaluate('window.orbitMark');
    const streams = () => requests.filter((sent) => new URL(sent.url()).pathname === '/events/stream');
    const history = () => page.getByRole('region', { name: 'History' });

    it('a Job page shows a run started through the API within 2 s, without reloading', async () => {
      const job = await createJob({ command: 'sleep 0.5' });
      await page.goto(`/ui/jobs/${job.id}`);
      await textOf(history(), /No run yet/);
      await mark();
      const run = await runNow(job.id);
      await textOf(history(), new RegExp(String(run.id).slice(0, 8)), 2000);
      await textOf(history(), /SUCCEEDED/, 5000);
      expect(await stillMarked()).toBe(1);
    });

    it('an Execution page turns from RUNNING to SUCCEEDED by itself, then stops reading the output', async () => {
      const job = await createJob({ command: 'echo begun; sleep 1.5; echo ended' });
      const run = await runNow(job.id);
      await page.goto(`/ui/executions/${run.id}`);
      await textOf(page.getByRole('heading', { level: 1 }), /RUNNING/);
      await mark();
      await textOf(page.getByRole('heading', { level: 1 }), /SUCCEEDED/, 5000);
      await textOf(page.getByRole('region', { name: 'Output' }), /begun\nended/);
      expect(await stillMarked()).toBe(1);
      const outputReads = () => requests.filter((sent) => sent.url().endsWith(`/executions/${run.id}/output`)).length;
      const readsAtEnd = outputReads();
      await page.waitForTimeout(1500);
      expect(outputReads()).toBe(readsAtEnd);
    });

    it('after the connection drops, the page resumes from the last id and shows what happened meanwhile', async () => {
      // the page's requests that got an answer, and those that ended (failed, or finished when cut between chunks)
      const answered = new Set<Request>();
      const ended = new Set<Request>();
      const onResponse = (response: Response) => answered.add(response.request());
      const onEnd = (sent: Request) => ended.add(sent);
      page.on('response', onResponse).on('requestfailed', onEnd).on('requestfinished', onEnd);
      const job = await createJob({ command: 'true' });
      await page.goto(`/ui/jobs/${job.id}`);
      await textOf(history(), /No run yet/);
      await mark();
      // a cut before the stream is open (or while it waits to reconnect) would end nothing
      const open = await waitFor(
        () => streams().find((sent) => answered.has(sent) && !ended.has(sent)),
        'the page to open its event stream',
      );
      const before = streams().length;
      let runId: string;
      await page.context().setOffline(true);
      try {
        // offline stops new connections; the open one is cut from the server's side
        t.app.getHttpServer().closeAllConnections();
        await waitFor(() => ended.has(open) || undefined, 'the open event stream to end');
        runId = String((await runNow(job.id)).id);
        expect((await finished(runId)).status).toBe('SUCCEEDED');
        await page.waitForTimeout(500);
        expect(await history().textContent()).toMatch(/No run yet/);
      } finally {
        // online again whatever happened: the tests after this one share the page
        await page.context().setOffline(false);
        page.off('response', onResponse).off('requestfailed', onEnd).off('requestfinished', onEnd);
      }
      await textOf(history(), new RegExp(`${runId.slice(0, 8)}[\\s\\S]*SUCCEEDED`), 5000);
      expect(await stillMarked()).toBe(1);
      const resumed = streams().slice(before);
      const ids = await Promise.all(resumed.map((sent) => sent.headerValue('last-event-id')));
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.every((id) => id !== null && /^\d+$/.test(id))).toBe(true);
    });

    it('a burst of 2,000 events costs the Job page a handful of re-reads, not 2,000', async () => {
      const job = await createJob();
      await page.goto(`/ui/jobs/${job.id}`);
      await textOf(history(), /No run yet/);
      const reads = () => requests.filter((sent) => sent.url().includes(`/executions?jobId=${job.id}`)).length;
      const readsBefore = reads();
      const db = new pg.Client({ connectionString: t.db.url });
      await db.connect();
      try {
        // due tomorrow, so no worker claims them: one statement, 2,000 execution.queued events
        await db.query(
          `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
           SELECT gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now() + interval '1 day', now()
           FROM generate_series(1, 2000)`,
          [job.id],
        );
        await page.getByRole('link', { name: 'Older' }).waitFor({ timeout: 3000 });
        await page.waitForTimeout(1000);
        const rereads = reads() - readsBefore;
        expect(rereads).toBeGreaterThanOrEqual(1);
        expect(rereads).toBeLessThanOrEqual(8);
      } finally {
        await db.query('DELETE FROM executions WHERE job_id = $1', [job.id]);
        await db.end();
      }
    });

    it('the stream carries the token as a header; no request URL ever held it; signing out closes it', async () => {
      const stream = streams().at(-1)!;
      expect(await stream.headerValue('authorization')).toBe(`Bearer ${TEST_ADMIN_TOKEN}`);
      expect(requests.length).toBeGreaterThan(100);
      expect(requests.map((sent) => sent.url()).filter((url) => url.includes(TEST_ADMIN_TOKEN))).toEqual([]);
      const closed = page.waitForEvent('requestfailed', {
        predicate: (failed) => failed === stream,
        timeout: 3000,
      });
      await button('Sign out').click();
      await closed;
      await page.getByLabel('Token').waitFor();
      await page.waitForTimeout(1000);
      expect(streams().at(-1)).toBe(stream);
      await signIn(page, TEST_ADMIN_TOKEN);
    });
  });

  it('nothing went wrong in the page: no script error, no CSP refusal, no dialog', () => {
    expect(trouble).toEqual({ errors: [], dialogs: [] });
  });
});
