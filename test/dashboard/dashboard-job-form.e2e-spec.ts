import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { launchBrowser, openTab, PageTrouble, signIn } from './browser.js';

describe('the dashboard: the job form', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let trouble: PageTrouble;
  const field = (label: string) => page.getByLabel(label, { exact: true });

  beforeAll(async () => {
    t = await createTestApp({ role: 'all' });
    await t.app.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchBrowser();
    ({ page, trouble } = await openTab(browser, baseUrl));
    await signIn(page, TEST_ADMIN_TOKEN);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => {
    expect(trouble.errors).toEqual([]);
  });

  it('"No schedule" sits beside its label, the box first', async () => {
    await page.goto('/ui/jobs/new');
    const box = (await field('No schedule').boundingBox())!;
    const label = (await page.locator('label[for="noSchedule"]').boundingBox())!;
    expect(Math.abs(box.y + box.height / 2 - (label.y + label.height / 2))).toBeLessThan(3);
    expect(label.x - (box.x + box.width)).toBeGreaterThanOrEqual(0);
    expect(label.x - (box.x + box.width)).toBeLessThan(16);
  });
});
