import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';
import request from 'supertest';
import { insertRuns } from '../support/finished-runs.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { accessibilityProblems, launchBrowser, openTab, signIn } from './browser.js';

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const LONG_NAME = 'nightly-backup-of-the-customer-orders-database-to-cold-storage-in-another-region';
/** The main navigation's links, in their order: scripts and screen readers find them by these names. */
/** A test that opens every page, each checked by axe: about 2 s a page on a quiet machine. */
const PAGE_BY_PAGE_MS = 90_000;
const LINKS = ['Overview', 'Jobs', 'Workers', 'Tokens', 'Audit', 'Channels', 'Concurrency groups', 'Teams'];

/** A box the tests compare (the tests have no DOM types). */
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
type Measured = {
  getBoundingClientRect(): Box;
  scrollWidth: number;
  clientWidth: number;
  clientHeight: number;
  title: string;
};
/** The window, in the page (the tests have no DOM types). */
type View = { getComputedStyle(element: unknown): Record<string, string> };

/** The outermost elements that reach past the window's right edge, named for a failure's message. */
const PAST_THE_EDGE = `[...document.querySelectorAll('body *')]
  .filter((el) => el.getBoundingClientRect().right > innerWidth + 0.5)
  .filter((el, _, all) => !all.includes(el.parentElement))
  .slice(0, 5)
  .map((el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className ? '.' + String(el.className).split(' ').join('.') : ''))`;

async function box(locator: Locator): Promise<Box> {
  const found = await locator.boundingBox();
  if (!found) throw new Error(`${locator.toString()} is not shown`);
  return found;
}

/** The relative luminance of a CSS rgb() colour (WCAG's formula). */
function luminance(rgb: string): number {
  const [r, g, b] = rgb
    .match(/\d+(\.\d+)?/g)!
    .slice(0, 3)
    .map(Number) as [number, number, number];
  const linear = (c: number) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/**
 * The dashboard's visual design in a real browser: a side navigation and tables as wide as the
 * screen, whose names, schedules and dates stay on one line; sticky table headers; a light and a
 * dark theme (the system's by default, a toggle remembered) and dense or comfortable rows; times
 * relative with the instant on hover, in the browser's zone or UTC as the address says; and every
 * page usable on a phone, axe-clean in both themes.
 */
describe('the dashboard’s design', () => {
  let t: TestApp;
  let browser: Browser;
  let baseUrl: string;
  let longJobId: string;
  let clockedJobId: string;
  let runId: string;
  /** The page's clock in the times test: two hours before the clocked job's next run. */
  let now: number;
  const api = () => request(t.app.getHttpServer());

  /** A signed-in tab of its own, 1440×900 unless the options say otherwise. */
  async function tab(options: BrowserContextOptions = {}, before?: (page: Page) => Promise<void>): Promise<Page> {
    const { page } = await openTab(browser, baseUrl, 'en-GB', { viewport: DESKTOP, ...options });
    await before?.(page);
    await signIn(page, TEST_ADMIN_TOKEN);
    return page;
  }

  /** Opens a page by its address and waits until it has loaded what it shows. */
  async function open(page: Page, path: string): Promise<void> {
    await page.goto(path);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await waitFor(async () => ((await page.locator('.loading').count()) === 0 ? true : undefined), `${path} loaded`);
  }

  const everyPage = () => [
    '/ui/',
    '/ui/jobs',
    `/ui/jobs/${longJobId}`,
    `/ui/jobs/${longJobId}/edit`,
    `/ui/executions/${runId}`,
    '/ui/workers',
    '/ui/tokens',
    '/ui/audit',
    '/ui/channels',
    '/ui/concurrency-groups',
    '/ui/teams',
  ];

  beforeAll(async () => {
    t = await createTestApp({ env: { ORBIT_ALERTS_ALLOW_PRIVATE: 'true' } });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const job = async (body: Record<string, unknown>) =>
      (await api().post('/jobs').send(body).expect(201)).body as { id: string; nextRunAt: string };
    // enough rows for the Jobs list to scroll under its header
    for (let i = 1; i <= 16; i++) {
      await job({ name: `filler-${String(i).padStart(2, '0')}`, command: 'true', cronExpression: `${i} 4 * * *` });
    }
    longJobId = (
      await job({
        name: LONG_NAME,
        command: 'pg_dump --format=custom orders | aws s3 cp - s3://cold-storage/orders.dump',
        cronExpression: '30 2 * * 1-5',
        timezone: 'America/New_York',
      })
    ).id;
    const clocked = await job({ name: 'clocked', command: 'true', cronExpression: '0 * * * *' });
    clockedJobId = clocked.id;
    now = Date.parse(clocked.nextRunAt) - 2 * HOUR;
    // its last run ended three minutes before the page's now
    await insertRuns(t.db, clockedJobId, [new Date(now - 4 * MINUTE)]);
    runId = (await insertRuns(t.db, longJobId, [new Date(Date.now() - 3 * HOUR), new Date(Date.now() - 2 * HOUR)]))[0]!;
    await api()
      .post('/channels')
      .send({
        name: 'ops-webhook',
        type: 'webhook',
        url: 'http://127.0.0.1:9/hooks/orbit/a-rather-long-path/of-the-hook',
      })
      .expect(201);
    await api().post('/concurrency-groups').send({ name: 'database-dumps', limit: 2 }).expect(201);
    await api().post('/tokens').send({ name: 'deploy-pipeline-of-the-payments-team', role: 'operator' }).expect(201);
    browser = await launchBrowser();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a side navigation beside the page, with the links it had; tables as wide as the screen', async () => {
    const page = await tab();
    await open(page, '/ui/jobs');
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(LINKS);
    const main = await box(page.getByRole('main'));
    expect((await box(nav)).x + (await box(nav)).width).toBeLessThanOrEqual(main.x);
    expect(main.y).toBeLessThan(1);
    const table = await box(page.getByRole('table'));
    expect(table.x + table.width).toBeGreaterThan(DESKTOP.width - 64);
    await page.context().close();
  });

  it('a long name, a schedule and the dates stay on one line: the name cut short, whole on hover and in its name', async () => {
    const page = await tab();
    await open(page, '/ui/jobs');
    const link = page.getByRole('link', { name: LONG_NAME, exact: true });
    const shown = await link.evaluate((el: Measured) => ({
      title: el.title,
      clipped: el.scrollWidth > el.clientWidth,
    }));
    expect(shown).toEqual({ title: LONG_NAME, clipped: true });
    const cells = page.getByRole('row', { name: new RegExp(LONG_NAME) }).getByRole('cell');
    const lines = await cells.evaluateAll((tds: Measured[]) =>
      tds.map((td) => {
        const style = (globalThis as unknown as View).getComputedStyle(td);
        const content = td.clientHeight - parseFloat(style.paddingTop!) - parseFloat(style.paddingBottom!);
        return Math.round(content / parseFloat(style.lineHeight!));
      }),
    );
    expect(lines.length).toBeGreaterThan(4);
    expect(lines.filter((n) => n > 1)).toEqual([]);
    await page.context().close();
  });

  it('the header of a long table stays in sight while the page scrolls', async () => {
    const page = await tab({ viewport: { width: DESKTOP.width, height: 400 } });
    await open(page, '/ui/jobs');
    await page.mouse.wheel(0, 400);
    await waitFor(async () => (await page.evaluate<number>('window.scrollY')) >= 300 || undefined, 'scrolled');
    const header = await box(page.getByRole('columnheader', { name: 'Name' }));
    expect(Math.round(header.y)).toBe(0);
    await page.context().close();
  });

  it('the dark theme follows the system, a toggle changes it and the choice is remembered', async () => {
    const page = await tab({ colorScheme: 'dark' });
    await open(page, '/ui/jobs');
    const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    const toggle = page.getByRole('button', { name: 'Dark theme' });
    expect(luminance(await background())).toBeLessThan(0.05);
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await toggle.click();
    expect(luminance(await background())).toBeGreaterThan(0.9);
    await page.reload();
    await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
    expect(luminance(await background())).toBeGreaterThan(0.9);
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await page.context().close();
  });

  it('rows are dense; comfortable rows are a toggle away, and remembered', async () => {
    const page = await tab();
    await open(page, '/ui/jobs');
    const rowHeight = async () => (await box(page.getByRole('row', { name: /filler-01/ }))).height;
    const dense = await rowHeight();
    const toggle = page.getByRole('button', { name: 'Comfortable rows' });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await toggle.click();
    expect(await rowHeight()).toBeGreaterThan(dense + 6);
    await page.reload();
    await page.getByRole('row', { name: /filler-01/ }).waitFor();
    expect(await rowHeight()).toBeGreaterThan(dense + 6);
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await page.context().close();
  });

  it('times are relative, the instant in the browser’s zone on hover; UTC is a switch the address keeps', async () => {
    const page = await tab({ timezoneId: 'America/New_York' }, (tab) => tab.clock.setFixedTime(now));
    await open(page, `/ui/jobs?name=clocked`);
    const row = page.getByRole('row', { name: /clocked/ });
    const times = row.locator('time');
    await waitFor(async () => ((await times.count()) === 2 ? true : undefined), 'the next and the last run');
    expect(await times.allTextContents()).toEqual(['in 2 h', '3 min ago']);
    const next = new Date(now + 2 * HOUR);
    const clock = (zone: string) =>
      new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: zone })
        .format(next)
        .replace(/^24/, '00');
    expect(await times.first().getAttribute('title')).toContain(clock('America/New_York'));
    expect(await times.first().getAttribute('title')).not.toMatch(/UTC/);

    const utc = page.getByRole('button', { name: 'Times in UTC' });
    expect(await utc.getAttribute('aria-pressed')).toBe('false');
    await utc.click();
    await page.waitForURL(/[?&]tz=UTC/);
    expect(page.url()).toMatch(/name=clocked/);
    await waitFor(async () => ((await times.first().getAttribute('title'))?.endsWith('UTC') ? true : undefined), 'UTC');
    expect(await times.first().getAttribute('title')).toContain(clock('UTC'));
    // it goes with every link followed, and survives a reload
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
    await page.waitForURL(/\/ui\/\?tz=UTC$/);
    await page.getByRole('link', { name: 'Jobs', exact: true }).click();
    await page.waitForURL(/\/ui\/jobs\?tz=UTC$/);
    await page.reload();
    expect(await utc.getAttribute('aria-pressed')).toBe('true');
    await utc.click();
    await page.waitForURL(/\/ui\/jobs$/);
    await page.context().close();
  });

  it(
    'on a phone (390×844) every page fits the screen, the navigation whole, and axe finds nothing',
    async () => {
      const page = await tab({ viewport: PHONE, isMobile: true, hasTouch: true });
      const problems: Record<string, unknown> = {};
      for (const path of everyPage()) {
        await open(page, path);
        const width = await page.evaluate<number>('document.documentElement.scrollWidth');
        const links = page.getByRole('navigation', { name: 'Main' }).getByRole('link');
        const cut: string[] = [];
        for (const link of await links.all()) {
          const { x, width: w } = await box(link);
          if (x < 0 || x + w > PHONE.width) cut.push((await link.textContent()) ?? '');
        }
        const found = await accessibilityProblems(page);
        if (width > PHONE.width || cut.length > 0 || found.length > 0) {
          problems[path] = { width, cut, found, past: await page.evaluate<string[]>(PAST_THE_EDGE) };
        }
      }
      expect(problems).toEqual({});
      await page.context().close();
    },
    PAGE_BY_PAGE_MS,
  );

  it(
    'axe finds nothing on any page in the dark theme',
    async () => {
      const page = await tab({ colorScheme: 'dark' });
      const problems: Record<string, string[]> = {};
      for (const path of everyPage()) {
        await open(page, path);
        const found = await accessibilityProblems(page);
        if (found.length > 0) problems[path] = found;
      }
      expect(problems).toEqual({});
      await page.context().close();
    },
    PAGE_BY_PAGE_MS,
  );
});
