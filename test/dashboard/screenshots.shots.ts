import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startReceiver, startSmtp } from '../alerts/support.js';
import { createTestApp, TEST_ADMIN_TOKEN } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { launchBrowser, openTab } from './browser.js';
import { jobWithEveryFate } from './timeline-setup.js';

/**
 * `npm run screenshots`: a picture of each page of the dashboard, from the setup of the browser
 * tests (a real Orbit with a worker), for the README. Not part of `npm test` (it checks nothing).
 */
const OUT = new URL('../../docs/screenshots/', import.meta.url).pathname;

it('takes a screenshot of each page', async () => {
  mkdirSync(OUT, { recursive: true });
  const receiver = await startReceiver();
  const smtp = await startSmtp();
  const t = await createTestApp({
    role: 'all',
    env: { ORBIT_ALERTS_ALLOW_PRIVATE: 'true', ORBIT_SMTP_URL: smtp.url, ORBIT_SMTP_FROM: 'orbit@example.com' },
  });
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

    const channel = async (body: Record<string, unknown>) =>
      (await api().post('/channels').send(body).expect(201)).body as { id: string };
    const webhook = await channel({
      name: 'ops-webhook',
      type: 'webhook',
      url: receiver.url('/orbit'),
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    const email = await channel({
      name: 'oncall-email',
      type: 'email',
      to: ['oncall@example.com'],
      allJobs: { on: ['failed'] },
    });

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
      alerts: [{ channel: 'ops-webhook', on: ['failed', 'recovered'] }],
    });
    await job({ name: 'cache-warmup', command: 'sleep 120', cronExpression: '*/15 * * * *' });
    await job({ name: 'legacy-sync', command: 'true', cronExpression: '@hourly', enabled: false });
    // a few runs each, so that the recent runs, the chart and the percentiles have something to show
    for (let i = 0; i < 3; i++) await settled((await run(backup.id)).id);
    const done = await run(backup.id);
    await settled(done.id);
    for (let i = 0; i < 3; i++) await settled((await run(report.id)).id);
    await run((await api().get('/jobs').query({ name: 'cache-warmup' })).body.items[0].id as string);
    for (const { id } of [webhook, email]) await api().post(`/channels/${id}/test`).expect(200);
    // the three failed runs of weekly-report and the test, on each channel
    await waitFor(async () => {
      const counts = await Promise.all(
        [webhook, email].map(async ({ id }) => {
          const { items } = (await api().get('/deliveries').query({ channel: id })).body as {
            items: { status: string }[];
          };
          return items.filter((delivery) => delivery.status === 'DELIVERED').length;
        }),
      );
      return counts.every((count) => count >= 4) ? true : undefined;
    }, 'the alerts delivered');

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
    const fates = await jobWithEveryFate(t, 'ingest-events');
    await page.goto(`/ui/jobs/${fates.job.id}?from=${fates.from}&to=${fates.to}`);
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.getByText('missed', { exact: true }).first().waitFor();
    await timeline.screenshot({ path: `${OUT}job-timeline.png` });
    await page.getByRole('link', { name: 'Channels' }).click();
    await page.getByRole('link', { name: 'ops-webhook' }).click();
    await page.getByRole('region', { name: 'Alert deliveries' }).getByRole('table').waitFor();
    await shot('channels');
    await context.close();
  } finally {
    await browser.close();
    await t.close();
    await receiver.close();
    await smtp.close();
  }
}, 180_000);
