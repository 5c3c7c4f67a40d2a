import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import request from 'supertest';
import { FakeClock } from '../support/fake-clock.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { accessibilityProblems, launchBrowser, openTab, signIn, type PageTrouble } from './browser.js';

const MINUTE = 60_000;

/** The time of day of an instant as the page writes it (en-GB, UTC), to the minute. */
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/**
 * The pictures of the Overview (runs over time by outcome, what waited and ran) and the Jobs
 * list's duration sparkline in a real browser: what they show, where a failure leads, their text
 * for a screen reader, axe in both themes, and a phone's width.
 */
describe('the dashboard’s charts', () => {
  /** Half a minute into a minute: the runs below fall in minutes of their own. */
  const now = Math.floor(Date.now() / MINUTE) * MINUTE + 30_000;
  const clock = new FakeClock(new Date(now));
  let t: TestApp;
  let browser: Browser;
  let baseUrl: string;
  const troubles: PageTrouble[] = [];
  const api = () => request(t.app.getHttpServer());
  let failedRun = '';

  async function tab(options: BrowserContextOptions = {}): Promise<Page> {
    const { page, trouble } = await openTab(browser, baseUrl, 'en-GB', {
      viewport: { width: 1440, height: 900 },
      ...options,
    });
    troubles.push(trouble);
    await signIn(page, TEST_ADMIN_TOKEN);
    return page;
  }

  /** A run of the job queued `ago` ms before now, started then and ended `tookMs` later (or not). */
  async function run(
    jobId: string,
    ago: number,
    end?: { tookMs: number; outcome: 'succeed' | 'fail' },
  ): Promise<string> {
    clock.set(new Date(now - ago));
    const { id } = (await api().post(`/jobs/${jobId}/executions`).expect(201)).body as { id: string };
    await api().post(`/executions/${id}/start`).send({}).expect(200);
    if (end) {
      clock.advance(end.tookMs);
      const body = end.outcome === 'succeed' ? { exitCode: 0 } : { exitCode: 3, errorMessage: 'exit code 3' };
      await api().post(`/executions/${id}/${end.outcome}`).send(body).expect(200);
    }
    clock.set(new Date(now));
    return id;
  }

  async function expectAccessible(page: Page): Promise<void> {
    expect({ url: page.url(), problems: await accessibilityProblems(page) }).toEqual({ url: page.url(), problems: [] });
  }

  beforeAll(async () => {
    t = await createTestApp({ clock });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const job = async (name: string) =>
      (
        (await api().post('/jobs').send({ name, command: 'true', cronExpression: '0 3 * * *' }).expect(201)).body as {
          id: string;
        }
      ).id;
    const flaky = await job('charts-flaky');
    const busy = await job('charts-busy');
    failedRun = await run(flaky, 5 * MINUTE, { tookMs: 2000, outcome: 'fail' });
    await run(flaky, 4 * MINUTE, { tookMs: 8000, outcome: 'succeed' });
    await run(flaky, 3 * MINUTE, { tookMs: 500, outcome: 'succeed' });
    await run(busy, 2 * MINUTE);
    clock.set(new Date(now - MINUTE));
    await api().post(`/jobs/${busy}/executions`).expect(201);
    clock.set(new Date(now));
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => {
    for (const trouble of troubles) expect(trouble).toEqual({ errors: [], dialogs: [] });
  });

  it('the Overview draws runs per minute by outcome; a failed part links to the runs it counts', async () => {
    const page = await tab();
    const activity = page.getByRole('region', { name: 'Activity' });
    const runs = activity.getByRole('group', { name: /^Runs per minute, stacked by outcome/ });
    await runs.waitFor();
    const caption = (await activity.locator('.runs-chart figcaption').textContent())!.replace(/\s+/g, ' ');
    expect(caption).toBe(
      'Runs per minute, by outcome: 5 runs created in the last hour; 2 succeeded, 1 failed, 0 cancelled, 2 not ended yet.',
    );
    // the numbers for a screen reader: the minutes that had runs
    const table = activity.getByRole('table', { name: /^Runs per minute by outcome/ });
    expect(await table.getByRole('row').count()).toBe(1 + 5);

    const minute = now - 5 * MINUTE - 30_000;
    const failed = runs.getByRole('link', { name: `1 failed run created ${hhmm(minute)}–${hhmm(minute + MINUTE)}` });
    expect(await runs.getByRole('link').count()).toBe(1);
    await expectAccessible(page);
    await failed.click();
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    expect(new URL(page.url()).searchParams.get('status')).toBe('FAILED');
    const listed = page.getByRole('table', { name: 'Runs' });
    await listed.getByRole('link', { name: 'charts-flaky' }).waitFor();
    expect(await listed.getByRole('row').count()).toBe(2);
    expect(await listed.getByRole('link', { name: failedRun.slice(0, 8) }).count()).toBe(1);
    await expectAccessible(page);
  });

  it('a switch shows the last day by the hour', async () => {
    const page = await tab();
    const activity = page.getByRole('region', { name: 'Activity' });
    await activity.getByRole('group', { name: /^Runs per minute/ }).waitFor();
    const day = activity.getByRole('button', { name: 'Last day' });
    expect(await day.getAttribute('aria-pressed')).toBe('false');
    await day.click();
    await activity.getByRole('group', { name: /^Runs per hour/ }).waitFor();
    expect(await day.getAttribute('aria-pressed')).toBe('true');
    expect((await activity.locator('.runs-chart figcaption').textContent())!.replace(/\s+/g, ' ')).toContain(
      '5 runs created in the last 24 hours',
    );
  });

  it('the Overview draws the runs waiting and running, and says now and the highest in words', async () => {
    const page = await tab();
    const levels = page.getByRole('img', { name: /^Runs waiting and running over time\./ });
    await levels.waitFor();
    const name = await levels.getAttribute('aria-label');
    expect(name).toBe(
      `Runs waiting and running over time. Waiting: 1 now, at most 1 (at ${hhmm(now - 30_000)}). ` +
        `Running: 1 now, at most 1 (at ${hhmm(now - MINUTE - 30_000)}).`,
    );
    expect(await page.locator('.levels-chart polyline').count()).toBe(2);
  });

  it('the Jobs list draws each job’s durations as a sparkline beside its bars', async () => {
    const page = await tab();
    await page.goto('/ui/jobs');
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'charts-flaky', exact: true }) });
    const sparkline = row.getByRole('img', { name: /^Durations of the last 3 runs/ });
    await sparkline.waitFor();
    expect(await sparkline.getAttribute('aria-label')).toBe(
      'Durations of the last 3 runs, from 2.0 s to 500 ms; longest 8.0 s',
    );
    // one dot for the failed run
    expect(await sparkline.locator('circle').count()).toBe(1);
    await expectAccessible(page);
  });

  it('the charts are axe-clean in the dark theme and fit a phone’s width', async () => {
    for (const options of [{ colorScheme: 'dark' as const }, { viewport: { width: 390, height: 844 } }]) {
      const page = await tab(options);
      await page.getByRole('img', { name: /^Runs waiting and running/ }).waitFor();
      await expectAccessible(page);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
        options.viewport?.width ?? 1440,
      );
      await page.goto('/ui/jobs');
      await page.getByRole('img', { name: /^Durations of the last 3 runs/ }).waitFor();
      await expectAccessible(page);
      await page.context().close();
    }
  }, 90_000);
});
