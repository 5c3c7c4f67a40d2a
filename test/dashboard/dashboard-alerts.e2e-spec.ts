import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { startReceiver } from '../alerts/support.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { accessibilityProblems, formSection, launchBrowser, openTab, signIn } from './browser.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('the dashboard: channels, alert rules and deliveries', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const api = () => request(t.app.getHttpServer());
  const button = (name: string) => page.getByRole('button', { name, exact: true });

  async function textOf(locator: ReturnType<Page['locator']>, pattern: RegExp): Promise<string> {
    return waitFor(async () => {
      const text = (await locator.textContent()) ?? '';
      return pattern.test(text) ? text : undefined;
    }, `${pattern} in ${locator.toString()}`);
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestApp({
      role: 'all',
      env: { ORBIT_ALERTS_ALLOW_PRIVATE: 'true', ORBIT_POLL_INTERVAL_MS: '100' },
    });
    await t.app.listen(0, '127.0.0.1');
    browser = await launchBrowser();
    ({ page } = await openTab(browser, `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`));
    await signIn(page, TEST_ADMIN_TOKEN);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  it('an admin adds a webhook channel, its secret never shown again, and sends a test that is listed with its attempt', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Channels' }).click();
    await page.getByRole('heading', { name: 'Channels', level: 1 }).waitFor();
    await page.getByLabel('Name').fill('ui-hook');
    await page.getByLabel('URL').fill(receiver.url('/ui-hook'));
    await page.getByLabel('Secret').fill(SECRET);
    await button('Add channel').click();
    await page.getByRole('link', { name: 'ui-hook' }).waitFor();
    expect(await page.content()).not.toContain(SECRET);
    expect(await accessibilityProblems(page)).toEqual([]);

    await page.getByRole('button', { name: 'Send test to ui-hook' }).click();
    const deliveries = page.getByRole('region', { name: 'Alert deliveries' });
    await textOf(deliveries, /test.*ui-hook.*DELIVERED.*HTTP 200/s);
    expect(receiver.at('/ui-hook')).toHaveLength(1);
  });

  it("a channel takes the cluster's retention events for every job, as the hint names them", async () => {
    const field = page.getByLabel('Every job, on');
    await page.getByLabel('Name').fill('ui-retention');
    await page.getByLabel('URL').fill(receiver.url('/ui-retention'));
    expect(await page.locator('#channel-all-jobs + .hint').textContent()).toMatch(
      /retention_failed,\s+retention_behind, retention_recovered/,
    );
    await field.fill('retention_failed, retention_behind, retention_recovered');
    await button('Add channel').click();
    await page.getByRole('link', { name: 'ui-retention' }).waitFor();
    const { body } = await api().get('/channels').expect(200);
    expect(body.items.find((channel: { name: string }) => channel.name === 'ui-retention').allJobs).toEqual({
      on: ['retention_failed', 'retention_behind', 'retention_recovered'],
    });
  });

  it("a bad URL gets the API's message", async () => {
    await page.getByLabel('Name').fill('ui-metadata');
    await page.getByLabel('URL').fill('http://169.254.169.254/latest');
    await button('Add channel').click();
    await textOf(page.getByRole('alert').first(), /link-local/);
  });

  it("the job form sets the alerts, lateAfterSeconds and maxDurationSeconds; the job's page lists its deliveries", async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('link', { name: 'New job' }).click();
    await page.getByLabel('Name').fill('ui-alerting');
    await page.getByLabel('Command').fill('exit 4');
    await page.getByLabel('Cron expression').fill('0 3 * * *');
    await formSection(page, 'Alerts').toggle();
    await page.getByLabel('Alerts').fill('ui-hook: failed, late');
    await page.getByLabel('Late after (seconds)').fill('600');
    await page.getByLabel('Long-running after (seconds)').fill('30');
    await button('Save').click();
    await page.getByRole('heading', { name: 'ui-alerting' }).waitFor();
    const { body: jobs } = await api().get('/jobs?name=ui-alerting').expect(200);
    const job = jobs.items[0];
    expect(job).toMatchObject({
      alerts: [{ channel: 'ui-hook', on: ['failed', 'late'] }],
      lateAfterSeconds: 600,
      maxDurationSeconds: 30,
    });

    await api().post(`/jobs/${job.id}/executions`).expect(201);
    await textOf(page.getByRole('region', { name: 'Alert deliveries' }), /failed.*ui-hook.*DELIVERED/s);

    await page.goto(`/ui/jobs/${job.id}/edit`);
    expect(await page.getByLabel('Alerts').inputValue()).toBe('ui-hook: failed, late');
    await page.getByLabel('Long-running after (seconds)').fill('');
    await button('Save').click();
    await page.getByRole('heading', { name: 'ui-alerting' }).waitFor();
    expect((await api().get(`/jobs/${job.id}`).expect(200)).body.maxDurationSeconds).toBeNull();
  });
});
