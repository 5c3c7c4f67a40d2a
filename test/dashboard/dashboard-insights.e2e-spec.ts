import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page } from 'playwright-core';
import request from 'supertest';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { accessibilityProblems, launchBrowser, openTab, PageTrouble } from './browser.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are loosely typed JSON
type Body = Record<string, any>;
/** What the page's element is to the check that it has the focus (the tests have no DOM types). */
type Focusable = { ownerDocument: { activeElement: unknown } };

/**
 * The dashboard's insights in a real browser: the Overview's problems and next 24 h, the Jobs
 * list's recent runs and failing filter, the Job page's chart and percentiles, the links between
 * attempts, and the main flows driven from the keyboard alone, with axe on every page.
 */
describe('the dashboard insights in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let trouble: PageTrouble;
  const api = () => request(t.app.getHttpServer());
  const jobs: Record<'flaky' | 'steady' | 'retried', Body> = {} as never;
  let retriedFirst: Body | undefined;

  async function createJob(body: Body): Promise<Body> {
    return (await api().post('/jobs').send(body).expect(201)).body as Body;
  }

  async function finished(id: string): Promise<Body> {
    return waitFor(async () => {
      const e = (await api().get(`/executions/${id}`).expect(200)).body as Body;
      return ['QUEUED', 'RUNNING'].includes(e.status as string) ? undefined : e;
    }, `execution ${id} to finish`);
  }

  async function runs(jobId: string, times: number): Promise<Body[]> {
    const done: Body[] = [];
    for (let i = 0; i < times; i++) {
      const execution = (await api().post(`/jobs/${jobId}/executions`).expect(201)).body as Body;
      done.push(await finished(execution.id as string));
    }
    return done;
  }

  async function expectAccessible(): Promise<void> {
    expect({ url: page.url(), problems: await accessibilityProblems(page) }).toEqual({ url: page.url(), problems: [] });
  }

  /** Presses Tab until `target` has the focus: proves it is reachable from the keyboard. */
  async function tabTo(target: Locator, presses = 80): Promise<void> {
    for (let i = 0; i < presses; i++) {
      await page.keyboard.press('Tab');
      if (await target.evaluate((el: Focusable) => el === el.ownerDocument.activeElement)) return;
    }
    throw new Error(`${target.toString()} did not get the focus after ${presses} Tab presses`);
  }

  beforeAll(async () => {
    t = await createTestApp({
      role: 'all',
      env: { ORBIT_RETRY_BACKOFF_BASE_MS: '0', ORBIT_RETRY_BACKOFF_MAX_MS: '0' },
    });
    await t.app.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    jobs.flaky = await createJob({ name: 'insights-flaky', command: 'sleep 0.2; exit 3', cronExpression: '0 3 * * *' });
    // hourly, half an hour from now: due within the next 24 h, but no fire of its own during the test
    // (every 5 minutes, a run crossing a fifth minute counted a third run)
    const minute = (new Date().getUTCMinutes() + 30) % 60;
    jobs.steady = await createJob({
      name: 'insights-steady',
      command: 'sleep 0.1',
      cronExpression: `${minute} * * * *`,
    });
    jobs.retried = await createJob({
      name: 'insights-retried',
      command: 'exit 1',
      cronExpression: '0 4 * * *',
      maxRetries: 1,
    });
    await runs(jobs.flaky.id as string, 3);
    await runs(jobs.steady.id as string, 2);
    [retriedFirst] = await runs(jobs.retried.id as string, 1);
    browser = await launchBrowser();
    ({ page, trouble } = await openTab(browser, baseUrl));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => {
    // no CSP refusal, no script error, no dialog on any page (the chart's chunk included)
    expect(trouble).toEqual({ errors: [], dialogs: [] });
  });

  it('signs in from the keyboard and the Overview shows the problems, the last 24 h and what is due', async () => {
    await page.goto('/ui/');
    await tabTo(page.getByLabel('Token'));
    await page.keyboard.type(TEST_ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

    const problems = page.getByRole('region', { name: 'Problems' });
    await problems.getByRole('link', { name: 'insights-flaky' }).waitFor();
    expect(await problems.textContent()).toContain('insights-flaky failed its last 3 runs');
    expect(await problems.textContent()).not.toContain('insights-steady');
    const lastDay = page.getByRole('list', { name: 'Runs in the last 24 hours' });
    expect((await lastDay.textContent())?.replace(/\s+/g, ' ')).toMatch(/5 FAILED/);
    expect((await lastDay.textContent())?.replace(/\s+/g, ' ')).toMatch(/2 SUCCEEDED/);
    const due = page.getByRole('region', { name: 'Due in the next 24 hours' });
    await due.getByRole('link', { name: 'insights-steady' }).waitFor();
    expect(await due.textContent()).toMatch(/3 jobs fire before/);
    await expectAccessible();
  });

  it('Jobs shows each job’s recent runs and success rate, and filters the failing ones in the address', async () => {
    await tabTo(page.getByRole('link', { name: 'Jobs', exact: true }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
    const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
    await row('insights-flaky')
      .getByRole('img', { name: /^Last 3 runs: 3 failed, took/ })
      .waitFor();
    expect(await row('insights-flaky').textContent()).toContain('0 %');
    await row('insights-steady')
      .getByRole('img', { name: /^Last 2 runs: 0 failed/ })
      .waitFor();
    expect(await row('insights-steady').textContent()).toContain('100 %');
    expect(await row('insights-flaky').textContent()).toContain('0 3 * * *');
    await expectAccessible();

    // the filter from the keyboard: focus the select, move to Failing
    await tabTo(page.getByLabel('Show'));
    await page.keyboard.press('End');
    await page.waitForURL(/\/ui\/jobs\?failing=true$/);
    await row('insights-retried').waitFor();
    await waitFor(async () => ((await page.getByRole('row').count()) === 3 ? true : undefined), 'two failing rows');
    expect(await row('insights-steady').count()).toBe(0);
    expect(await page.getByLabel('Show').inputValue()).toBe('failing');
    await expectAccessible();

    await page.goBack();
    await page.waitForURL(/\/ui\/jobs$/);
    await row('insights-steady').waitFor();
    await page.goForward();
    await page.waitForURL(/failing=true$/);
    await waitFor(async () => ((await row('insights-steady').count()) === 0 ? true : undefined), 'steady to go');
  });

  it('a Job page shows p50, p95, the success rate and a chart of durations, failures marked', async () => {
    await page.goto(`/ui/jobs/${jobs.flaky.id}`);
    const durations = page.getByRole('region', { name: 'Durations' });
    const cards = durations.getByRole('list', { name: 'The last 24 hours' });
    await cards.waitFor();
    const text = (await cards.textContent())!.replace(/\s+/g, ' ');
    expect(text).toMatch(/\d+ ms p50/);
    expect(text).toMatch(/\d+ ms p95/);
    expect(text).toContain('0 % succeeded');
    expect(text).toContain('3 failed, 0 succeeded in 24 h');
    await durations
      .getByRole('img', { name: /^Chart of durations\. Last 3 runs: 3 failed.*; p50 [\d.]+ m?s and p95 [\d.]+ m?s$/ })
      .waitFor();
    // the chart's dashed lines, in the units the cards use
    expect((await durations.locator('figcaption').textContent())!.replace(/\s+/g, ' ')).toMatch(
      /failed; dashed lines: p50 [\d.]+ m?s and p95 [\d.]+ m?s\.$/,
    );
    // uPlot, loaded on demand, drew into its canvas
    await durations.locator('canvas').first().waitFor();
    expect(
      await durations
        .locator('canvas')
        .first()
        .evaluate((canvas: { width: number }) => canvas.width),
    ).toBeGreaterThan(100);
    await expectAccessible();
  });

  it('an Execution page links to the previous and the next attempt', async () => {
    await page.goto(`/ui/executions/${retriedFirst!.id}`);
    const next = page.getByRole('link', { name: 'Next attempt' });
    await next.waitFor();
    expect(await page.getByRole('link', { name: 'Previous attempt' }).count()).toBe(0);
    await tabTo(next);
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: 'Previous attempt' }).waitFor();
    expect(await page.textContent('dl')).toContain('2 of at most 2');
    expect(await page.getByRole('link', { name: 'Next attempt' }).count()).toBe(0);
    await expectAccessible();
    await page.getByRole('link', { name: 'Previous attempt' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/ui/executions/${retriedFirst!.id}$`));
  });

  it('the main flows work from the keyboard: open a job, run it now, pause, resume, delete with confirmation', async () => {
    await page.goto('/ui/jobs');
    await tabTo(page.getByLabel('Search by name'));
    await page.keyboard.type('steady');
    await page.keyboard.press('Enter');
    await page.waitForURL(/name=steady/);
    const link = page.getByRole('link', { name: 'insights-steady', exact: true });
    await tabTo(link);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /insights-steady/, level: 1 }).waitFor();

    await tabTo(page.getByRole('button', { name: 'Run now' }));
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/ui\/executions\//);
    await page.getByRole('region', { name: 'Output' }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: /insights-steady/, level: 1 }).waitFor();

    await tabTo(page.getByRole('button', { name: 'Pause', exact: true }));
    await page.keyboard.press('Space');
    // the pause dialog (a note, a resume instant) is confirmed from the keyboard too
    const confirmPause = page.getByRole('dialog').getByRole('button', { name: 'Pause', exact: true });
    await confirmPause.waitFor();
    await tabTo(confirmPause);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Resume', exact: true }).waitFor();
    expect((await api().get(`/jobs/${jobs.steady.id}`).expect(200)).body.enabled).toBe(false);
    await tabTo(page.getByRole('button', { name: 'Resume', exact: true }));
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Pause', exact: true }).waitFor();

    await tabTo(page.getByRole('button', { name: 'Delete', exact: true }));
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await expectAccessible();
    // Escape closes the dialog and deletes nothing; the second time, the dialog's Delete confirms
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await api().get(`/jobs/${jobs.steady.id}`)).status).toBe(200);
    await tabTo(page.getByRole('button', { name: 'Delete', exact: true }));
    await page.keyboard.press('Enter');
    await tabTo(dialog.getByRole('button', { name: 'Delete' }), 5);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/ui\/jobs$/);
    await waitFor(async () => ((await api().get(`/jobs/${jobs.steady.id}`)).status === 404 ? true : undefined), 'gone');
  });
});
