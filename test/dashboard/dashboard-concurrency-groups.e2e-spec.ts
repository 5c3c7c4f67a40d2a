import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { accessibilityProblems, formSection, launchBrowser, openTab, signIn } from './browser.js';

describe('the dashboard: concurrency groups (admin)', () => {
  let t: TestApp;
  let browser: Browser;
  let baseUrl: string;
  let page: Page;
  const api = () => request(t.app.getHttpServer());
  const button = (name: string) => page.getByRole('button', { name, exact: true });
  const nav = () => page.getByRole('navigation', { name: 'Main' });
  const groups = async () =>
    ((await api().get('/concurrency-groups').expect(200)).body.items as Array<{ name: string; limit: number }>).map(
      ({ name, limit }) => ({ name, limit }),
    );

  async function textOf(locator: ReturnType<Page['locator']>, pattern: RegExp): Promise<string> {
    return waitFor(async () => {
      const text = (await locator.textContent()) ?? '';
      return pattern.test(text) ? text : undefined;
    }, `${pattern} in ${locator.toString()}`);
  }

  /** The error shown at a field, which the field names as its description. */
  async function errorAt(label: string): Promise<string> {
    const field = page.getByLabel(label, { exact: true });
    await waitFor(async () => ((await field.getAttribute('aria-invalid')) === 'true' ? true : undefined), label);
    const described = (await field.getAttribute('aria-describedby')) ?? '';
    const texts = await Promise.all(described.split(' ').map((id) => page.locator(`#${id}`).textContent()));
    return texts.join(' ');
  }

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchBrowser();
    ({ page } = await openTab(browser, baseUrl));
    await signIn(page, TEST_ADMIN_TOKEN);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('an admin reaches the page from the main navigation, after the links that were there, and sees what a group is', async () => {
    expect(await nav().getByRole('link').allTextContents()).toEqual([
      'Overview',
      'Jobs',
      'Workers',
      'Tokens',
      'Audit',
      'Channels',
      'Concurrency groups',
      'Teams',
    ]);
    await nav().getByRole('link', { name: 'Concurrency groups' }).click();
    await page.getByRole('heading', { name: 'Concurrency groups', level: 1 }).waitFor();
    expect(await textOf(page.getByRole('main'), /No concurrency group yet/)).toMatch(/runs of every job that names/);
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it("creates a group, with the API's refusals shown at the field they are about", async () => {
    await page.getByLabel('Name', { exact: true }).fill('database');
    await page.getByLabel('Limit', { exact: true }).fill('0');
    await button('Add group').click();
    expect(await errorAt('Limit')).toMatch(/limit must be an integer from 1 to/);
    expect(await accessibilityProblems(page)).toEqual([]);

    await page.getByLabel('Limit', { exact: true }).fill('3');
    await button('Add group').click();
    await textOf(page.getByRole('row', { name: /database/ }), /database\s*3/);
    expect(await groups()).toEqual([{ name: 'database', limit: 3 }]);

    await page.getByLabel('Name', { exact: true }).fill('database');
    await page.getByLabel('Limit', { exact: true }).fill('2');
    await button('Add group').click();
    expect(await errorAt('Name')).toMatch(/A concurrency group named 'database' exists already/);
  });

  it('changes the limit of a group', async () => {
    await page.getByRole('button', { name: 'Edit database' }).click();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('database');
    await page.getByLabel('Limit', { exact: true }).fill('5');
    await button('Save group').click();
    await textOf(page.getByRole('row', { name: /database/ }), /database\s*5/);
    expect(await groups()).toEqual([{ name: 'database', limit: 5 }]);
  });

  it('a delete while jobs name the group shows why it was refused; once none does, it goes', async () => {
    const job = await api()
      .post('/jobs')
      .send({ name: 'db-backup', command: 'true', cronExpression: '0 3 * * *', concurrencyGroup: 'database' })
      .expect(201);
    await page.getByRole('button', { name: 'Delete database' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await textOf(page.getByRole('alert').first(), /cannot be deleted while jobs name it: db-backup/);
    expect(await groups()).toHaveLength(1);

    await api().delete(`/jobs/${job.body.id}`).expect(204);
    await page.getByRole('button', { name: 'Delete database' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await textOf(page.getByRole('main'), /No concurrency group yet/);
    expect(await groups()).toEqual([]);
  });

  it("the job form's Concurrency group names the page instead of the API", async () => {
    await page.goto('/ui/jobs/new');
    await formSection(page, 'Where it runs').toggle();
    const hint = page.locator('#concurrencyGroup-hint');
    expect(await hint.textContent()).not.toMatch(/POST/);
    await hint.getByRole('link', { name: 'Concurrency groups' }).click();
    await page.getByRole('heading', { name: 'Concurrency groups', level: 1 }).waitFor();
  });
});
