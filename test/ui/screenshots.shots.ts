import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createTestApp, TEST_ADMIN_TOKEN } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { launchBrowser, openTab } from './browser.js';

/**
 * `npm run screenshots`: a picture of each page of the dashboard, from the setup of the browser
 * tests (a real Orbit with a worker), for the README. Not part of `npm test` (it checks nothing).
 */
const OUT = new URL('../../docs/screenshots/', import.meta.url).pathname;

it('takes a screenshot of each page', async () => {
  mkdirSync(OUT, { recursive: true });
  const t = await createTestApp({ role: 'all' });
  const browser = await launchBrowser();
  try {
    await t.app.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const api = () => request(t.app.getHttpServer());
    const job = async (body: Record<string, unknown>) =>
      (await api().post('/jobs').send(body).expect(201)).body as { id: string };
    const run = async (jobId: string) =>
      (await api().post(`/jobs/${jobId}/executions`).expect(201)).body as { id: string };
    const settled = (id: string) =>
      waitFor(async () => {
        const { status } = (await api().get(`/executions/${id}`)).body as { status: string };
        return ['QUEUED', 'RUNNING'].includes(status) ? undefined : status;
      }, `run ${id} to end`);

    const backup = await job({
      name: 'nightly-backup',
      command:
        'printf \'\\033[1mBacking up\\033[0m /var/lib/app\\n\'; for t in users orders invoices; do echo "dumped $t"; done; ' +
        "printf '\\033[32mdone\\033[0m in 2.1 s\\n'; echo 'warning: 3 rows skipped' >&2",
      cronExpression: '30 2 * * *',
      timezone: 'Europe/Berlin',
      maxRetries: 2,
    });
    const report = await job({
      name: 'weekly-report',
      command: 'exit 3',
      cronExpression: '0 9 * * 1',
      timezone: 'America/New_York',
    });
    await job({ name: 'cache-warmup', command: 'sleep 120', cronExpression: '*/15 * * * *' });
    await job({ name: 'legacy-sync', command: 'true', cronExpression: '@hourly', enabled: false });
    // a few runs each, so that the recent runs, the chart and the percentiles have something to show
    for (let i = 0; i < 3; i++) await settled((await run(backup.id)).id);
    const done = await run(backup.id);
    await settled(done.id);
    for (let i = 0; i < 3; i++) await settled((await run(report.id)).id);
    await run((await api().get('/jobs').query({ name: 'cache-warmup' })).body.items[0].id as string);

    const { context, page } = await openTab(browser, baseUrl);
    await page.setViewportSize({ width: 1280, height: 800 });
    const shot = (name: string) => page.screenshot({ path: `${OUT}${name}.png`, fullPage: true });
    await page.goto('/ui/');
    await shot('sign-in');
    await page.getByLabel('Token').fill(TEST_ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Running now' }).waitFor();
    await page.getByText('sleep 120').first().waitFor();
    await page.getByRole('link', { name: 'weekly-report' }).first().waitFor();
    await shot('overview');
    await page.getByRole('link', { name: 'Jobs', exact: true }).click();
    await page.getByRole('link', { name: 'nightly-backup' }).waitFor();
    await page.getByRole('img', { name: /^Last 4 runs/ }).waitFor();
    await shot('jobs');
    await page.getByRole('link', { name: 'nightly-backup' }).click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await page.getByRole('table').waitFor();
    await page.locator('.duration-chart canvas').first().waitFor();
    await shot('job');
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByRole('region', { name: 'Next fire times' }).getByRole('listitem').first().waitFor();
    await shot('job-form');
    await page.goto(`/ui/executions/${done.id}`);
    await page.getByText('dumped invoices').waitFor();
    await shot('execution');
    await page.getByRole('link', { name: 'Workers' }).click();
    await page.getByRole('table').waitFor();
    await shot('workers');
    await context.close();
  } finally {
    await browser.close();
    await t.close();
  }
}, 120_000);
