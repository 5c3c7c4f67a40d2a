import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { createTestApp, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { accessibilityProblems, launchBrowser, openTab, signIn } from './browser.js';

/** Every secret below holds this word: no page may. */
const HIDDEN = 's3cret';
const SLACK = 'http://127.0.0.1:9/services/T000/B000/slack-s3cret';
const HOOK = 'http://127.0.0.1:9/hooks/orbit?token=query-s3cret';

describe('the dashboard: what a channel posts to, and which jobs alert to it', () => {
  let t: TestApp;
  let browser: Browser;
  let baseUrl: string;
  let page: Page;
  const api = () => request(t.app.getHttpServer());
  const channelsPage = () => page.goto('/ui/channels');

  async function textOf(locator: ReturnType<Page['locator']>, pattern: RegExp): Promise<string> {
    return waitFor(async () => {
      const text = (await locator.textContent()) ?? '';
      return pattern.test(text) ? text : undefined;
    }, `${pattern} in ${locator.toString()}`);
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { ORBIT_ALERTS_ALLOW_PRIVATE: 'true' } });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchBrowser();
    ({ page } = await openTab(browser, baseUrl));
    await signIn(page, 'test-admin-token-0123456789abcdef');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('with no channel, the page says what a channel is and how to add one', async () => {
    await channelsPage();
    const empty = await textOf(page.getByRole('main'), /No channel yet/);
    expect(empty).toMatch(/No channel yet: a channel is where alerts go/);
    expect(empty).toMatch(/Add channel/);
    expect(await page.getByRole('table').count()).toBe(0);
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it('each channel shows its URL with the secret parts masked, and the jobs whose rules name it, linked', async () => {
    await api().post('/channels').send({ name: 'team-slack', type: 'slack', url: SLACK }).expect(201);
    await api().post('/channels').send({ name: 'ops-hook', type: 'webhook', url: HOOK }).expect(201);
    const nightly = await api()
      .post('/jobs')
      .send({
        name: 'nightly-backup',
        command: 'true',
        cronExpression: '0 3 * * *',
        alerts: [{ channel: 'team-slack', on: ['failed', 'late'] }],
      })
      .expect(201);
    await api()
      .post('/jobs')
      .send({
        name: 'weekly-report',
        command: 'true',
        cronExpression: '0 6 * * 1',
        alerts: [{ channel: 'team-slack' }, { channel: 'ops-hook' }],
      })
      .expect(201);

    await channelsPage();
    const slack = page.getByRole('row', { name: /team-slack/ });
    await textOf(slack, /http:\/\/127\.0\.0\.1:9\/services\/…\/…\/…/);
    await textOf(page.getByRole('row', { name: /ops-hook/ }), /http:\/\/127\.0\.0\.1:9\/hooks\/…\?token=…/);
    expect(await slack.getByRole('link', { name: /backup|report/ }).allTextContents()).toEqual([
      'nightly-backup',
      'weekly-report',
    ]);
    expect(await textOf(slack, /nightly-backup: failed, late/)).toMatch(/weekly-report: failed/);
    expect(await page.content()).not.toContain(HIDDEN);
    expect(await accessibilityProblems(page)).toEqual([]);

    await slack.getByRole('link', { name: 'nightly-backup' }).click();
    await page.waitForURL(`**/ui/jobs/${nightly.body.id}`);
  });

  it("the job page lists its alert rules, each channel linked to that channel's page", async () => {
    const { body } = await api().get('/jobs?name=weekly-report').expect(200);
    await page.goto(`/ui/jobs/${body.items[0].id}`);
    const rules = page.getByRole('region', { name: 'Alert rules' });
    expect(await textOf(rules, /team-slack/)).toMatch(/team-slack\s*on failed.*ops-hook\s*on failed/s);
    expect(await accessibilityProblems(page)).toEqual([]);
    const channels = (await api().get('/channels').expect(200)).body.items as Array<{ id: string; name: string }>;
    await rules.getByRole('link', { name: 'ops-hook' }).click();
    await page.waitForURL(`**/ui/channels?channel=${channels.find((c) => c.name === 'ops-hook')!.id}`);
    await page.getByRole('region', { name: 'Alert deliveries' }).waitFor();
  });

  it('a job without rules says so, and names the channels that take every job', async () => {
    await api()
      .post('/channels')
      .send({ name: 'all-failures', type: 'slack', url: SLACK, allJobs: { on: ['failed'] } })
      .expect(201);
    const job = await api()
      .post('/jobs')
      .send({ name: 'quiet-job', command: 'true', cronExpression: '0 3 * * *' })
      .expect(201);
    await page.goto(`/ui/jobs/${job.body.id}`);
    const rules = page.getByRole('region', { name: 'Alert rules' });
    // the channels that take every job arrive with their own read, after the job's
    await textOf(rules, /No rule of its own\.[\s\S]*all-failures\s*on failed \(every job\)/);
  });
});
