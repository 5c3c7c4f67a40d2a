import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page } from 'playwright-core';
import request from 'supertest';
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
});
