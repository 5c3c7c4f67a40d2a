import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { jobBody } from '../support/jobs.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { accessibilityProblems, launchBrowser, openTab, signIn } from './browser.js';

describe("the dashboard: the header's team filter, and a job's team", () => {
  let t: TestApp;
  let browser: Browser;
  let baseUrl: string;
  let page: Page;
  const api = () => request(t.app.getHttpServer());
  const field = (label: string) => page.getByLabel(label, { exact: true });
  const teamFilter = () => page.getByRole('navigation', { name: 'Main' }).locator('..').getByLabel('Team');
  const jobRows = async (): Promise<string[]> =>
    (await page.getByRole('table', { name: 'Jobs' }).locator('tbody tr').allTextContents()).map((row) => row.trim());

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    await api().post('/teams').send({ name: 'payments' }).expect(201);
    await api()
      .post('/jobs')
      .send(jobBody({ name: 'ledger-close', team: 'payments' }))
      .expect(201);
    await api()
      .post('/jobs')
      .send(jobBody({ name: 'cache-warm' }))
      .expect(201);
    browser = await launchBrowser();
    ({ page } = await openTab(browser, baseUrl));
    await signIn(page, TEST_ADMIN_TOKEN);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("shows every team's jobs with their team until the reader picks one team; each list page then answers that team's", async () => {
    await page.goto(`${baseUrl}/ui/jobs`);
    await page.getByRole('table', { name: 'Jobs' }).waitFor();
    expect(await page.getByRole('columnheader').allTextContents()).toContain('Team');
    expect(await jobRows()).toEqual([
      expect.stringMatching(/cache-warm\s*default/),
      expect.stringMatching(/ledger-close\s*payments/),
    ]);
    expect(await teamFilter().locator('option').allTextContents()).toEqual(['All my teams', 'default', 'payments']);

    await teamFilter().selectOption('payments');
    await waitFor(async () => ((await jobRows()).length === 1 ? true : undefined), 'one job left');
    expect(await jobRows()).toEqual([expect.stringMatching(/^ledger-close/)]);
    expect(await page.getByRole('columnheader').allTextContents()).not.toContain('Team');
    expect(await accessibilityProblems(page)).toEqual([]);

    // every list the filter narrows takes the team: none of its pages shows a refusal
    for (const path of ['/', '/executions', '/channels', '/concurrency-groups', '/audit']) {
      await page.goto(`${baseUrl}/ui${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await waitFor(async () => ((await page.locator('.loading').count()) === 0 ? true : undefined), `${path} loaded`);
      expect({ path, alerts: await page.getByRole('alert').allTextContents() }).toEqual({ path, alerts: [] });
    }

    // what the reader makes goes to the team chosen, unless they name another
    await page.goto(`${baseUrl}/ui/jobs/new`);
    expect(await field('Team').inputValue()).toBe('payments');
    await page.goto(`${baseUrl}/ui/concurrency-groups`);
    await field('Name').fill('ledger-db');
    await field('Limit').fill('2');
    await page.getByRole('button', { name: 'Add group', exact: true }).click();
    await page.getByRole('row', { name: /ledger-db/ }).waitFor();
    expect((await api().get('/concurrency-groups').expect(200)).body.items).toEqual([
      expect.objectContaining({ name: 'ledger-db', team: 'payments' }),
    ]);

    // kept for the tab, across a reload
    await page.goto(`${baseUrl}/ui/jobs`);
    await page.getByRole('table', { name: 'Jobs' }).waitFor();
    expect(await teamFilter().inputValue()).toBe('payments');
    await teamFilter().selectOption('');
    await waitFor(async () => ((await jobRows()).length === 2 ? true : undefined), 'both jobs again');
  });

  it("makes a job in the team the form names, and shows a job's team", async () => {
    await page.goto(`${baseUrl}/ui/jobs/new`);
    await field('Name').fill('refunds');
    await field('Command').fill('echo refunds');
    await field('Cron expression').fill('0 4 * * *');
    await field('Team').fill('payments');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { name: 'refunds', level: 1 }).waitFor();
    const job = (await api().get('/jobs?name=refunds').expect(200)).body.items[0] as { team: string };
    expect(job.team).toBe('payments');
    const definition = page.getByRole('region', { name: 'Definition' });
    expect(await definition.textContent()).toMatch(/Team\s*payments/);

    await page.goto(`${baseUrl}/ui/jobs/new`);
    await field('Name').fill('refunds-2');
    await field('Command').fill('echo refunds');
    await field('Cron expression').fill('0 4 * * *');
    await field('Team').fill('nobody');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await waitFor(
      async () => ((await field('Team').getAttribute('aria-invalid')) === 'true' ? true : undefined),
      'the team refused at its field',
    );
    expect(await page.getByRole('main').textContent()).toContain('Team nobody not found');
  });
});
