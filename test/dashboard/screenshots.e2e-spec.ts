import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { FakeClock } from '../support/fake-clock.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { launchBrowser, openTab, signIn } from './browser.js';
import { comparePictures } from './pixel-diff.js';
import { NOW, seedScreenshotData } from './screenshot-data.js';

/**
 * Pictures of the dashboard's main pages at 1440×900 (the whole page) and 390×844 (a phone's
 * first screen), light and dark, compared with the baselines in test/dashboard/screenshots/.
 * The data and both clocks are fixed (screenshot-data.ts), so a picture changes only when the
 * page does. `UPDATE_SCREENSHOTS=1` writes the baselines anew (an intended change updates them in
 * the same commit) and the pictures of the docs (docs/screenshots/, the light 1440 ones).
 */
const UPDATE = process.env.UPDATE_SCREENSHOTS === '1';
const BASELINES = new URL('./screenshots/', import.meta.url).pathname;
const DOCS = new URL('../../docs/screenshots/', import.meta.url).pathname;
/** Where a failed comparison leaves the picture taken and a picture of what changed. */
const FAILED = join(tmpdir(), 'orbit-screenshots');
/** The share of a picture's pixels that may change (a rounding in a chart's line) before it fails. */
const TOLERANCE = 0.001;

const VIEWS = [
  { size: 1440, viewport: { width: 1440, height: 900 }, fullPage: true },
  { size: 390, viewport: { width: 390, height: 844 }, fullPage: false },
] as const;
const THEMES = ['light', 'dark'] as const;

interface Shot {
  name: string;
  /** The address, given what the data made. */
  path: (made: Made) => string;
  /** Resolves once the page shows everything it loads. */
  ready: (page: Page) => Promise<unknown>;
  /** Its part of the page alone, where that is the picture (the timeline, for the docs). */
  part?: (page: Page) => ReturnType<Page['locator']>;
  /** Only in the docs' view (light, 1440). */
  docsOnly?: boolean;
}
type Made = Awaited<ReturnType<typeof seedScreenshotData>>;

const SHOTS: Shot[] = [
  {
    name: 'overview',
    path: () => '/ui/',
    ready: async (page) => {
      await page.getByRole('link', { name: 'weekly-report' }).first().waitFor();
      await page.getByRole('img', { name: /^Runs waiting and running/ }).waitFor();
    },
  },
  {
    name: 'jobs',
    path: () => '/ui/jobs',
    ready: (page) =>
      waitFor(
        async () => ((await page.getByRole('img', { name: /^Last \d+ runs?:/ }).count()) === 3 ? true : undefined),
        'bars',
      ),
  },
  {
    name: 'job',
    path: ({ backupId }) => `/ui/jobs/${backupId}`,
    ready: async (page) => {
      await page.locator('.duration-chart canvas').first().waitFor();
      await page.locator('.timeline-counts').waitFor();
      await page.getByRole('region', { name: 'History' }).getByRole('table').waitFor();
      await page.getByRole('region', { name: 'Next fire times' }).getByRole('listitem').first().waitFor();
    },
  },
  {
    name: 'job-timeline',
    path: ({ warmupId }) => `/ui/jobs/${warmupId}`,
    ready: (page) => page.getByRole('list', { name: 'Slots' }).waitFor(),
    part: (page) => page.getByRole('region', { name: 'Timeline' }),
    docsOnly: true,
  },
  {
    name: 'job-form',
    path: ({ backupId }) => `/ui/jobs/${backupId}/edit`,
    ready: (page) => page.getByRole('region', { name: 'Next fire times' }).getByRole('listitem').first().waitFor(),
  },
  {
    name: 'execution',
    path: ({ backupRunId }) => `/ui/executions/${backupRunId}`,
    ready: async (page) => {
      await page.getByText('dumped invoices').waitFor();
      await page.getByRole('link', { name: 'nightly-backup' }).waitFor();
    },
  },
  {
    name: 'workers',
    path: () => '/ui/workers',
    ready: async (page) => {
      await page.getByRole('row', { name: /worker-eu-2/ }).waitFor();
      await page.getByRole('list', { name: 'Runs per worker' }).waitFor();
    },
  },
  {
    name: 'audit',
    path: () => '/ui/audit',
    ready: (page) =>
      page
        .getByRole('row', { name: /legacy-sync/ })
        .first()
        .waitFor(),
  },
  {
    name: 'channels',
    path: () => '/ui/channels',
    ready: (page) => page.getByRole('row', { name: /oncall-email/ }).waitFor(),
  },
];

/** The baseline's file: `jobs-1440-dark.png`. */
const baseline = (name: string, size: number, theme: string) => join(BASELINES, `${name}-${size}-${theme}.png`);
const DOCS_VIEW = { size: 1440, theme: 'light' } as const;

describe('screenshots of the dashboard, compared with their baselines', () => {
  let t: TestApp;
  let browser: Browser;
  let baseUrl: string;
  let made: Made;

  beforeAll(async () => {
    const clock = new FakeClock(NOW);
    t = await createTestApp({
      clock,
      env: {
        ORBIT_ALERTS_ALLOW_PRIVATE: 'true',
        ORBIT_SMTP_URL: 'smtp://localhost:2525',
        ORBIT_SMTP_FROM: 'orbit@example.com',
      },
    });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    made = await seedScreenshotData(t, clock);
    browser = await launchBrowser();
    mkdirSync(BASELINES, { recursive: true });
    mkdirSync(FAILED, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Takes the picture; answers what differs from its baseline (nothing when it matches, or when updating). */
  async function check(page: Page, shot: Shot, size: number, theme: string, fullPage: boolean): Promise<string[]> {
    const file = baseline(shot.name, size, theme);
    const options = { animations: 'disabled', caret: 'hide', fullPage } as const;
    const taken = shot.part ? await shot.part(page).screenshot(options) : await page.screenshot(options);
    if (UPDATE) {
      writeFileSync(file, taken);
      return [];
    }
    if (!existsSync(file)) return [`${shot.name}: no baseline at ${file} (UPDATE_SCREENSHOTS=1 writes it)`];
    const { changed, share, diff, sizes } = comparePictures(readFileSync(file), taken);
    if (share <= TOLERANCE) return [];
    const actual = join(FAILED, `${shot.name}-${size}-${theme}.png`);
    writeFileSync(actual, taken);
    if (diff) writeFileSync(actual.replace(/\.png$/, '.diff.png'), diff());
    return [`${shot.name}: ${changed} pixels (${(share * 100).toFixed(2)} %) changed, ${sizes}; taken: ${actual}`];
  }

  describe.each(VIEWS.flatMap((view) => THEMES.map((theme) => ({ ...view, theme }))))(
    'at $size px, $theme',
    ({ size, viewport, fullPage, theme }) => {
      it('each page looks as its baseline', async () => {
        const { context, page } = await openTab(browser, baseUrl, 'en-GB', { viewport, colorScheme: theme });
        try {
          await context.clock.setFixedTime(NOW);
          const changed: string[] = [];
          await page.goto('/ui/');
          await page.getByLabel('Token').waitFor();
          changed.push(
            ...(await check(page, { name: 'sign-in', path: () => '', ready: async () => {} }, size, theme, fullPage)),
          );
          await signIn(page, TEST_ADMIN_TOKEN);
          const docsView = size === DOCS_VIEW.size && theme === DOCS_VIEW.theme;
          for (const shot of SHOTS.filter((s) => docsView || !s.docsOnly)) {
            await page.goto(shot.path(made));
            await shot.ready(page);
            await waitFor(async () => ((await page.locator('.loading').count()) === 0 ? true : undefined), 'loaded');
            changed.push(...(await check(page, shot, size, theme, fullPage)));
          }
          expect(changed).toEqual([]);
        } finally {
          await context.close();
        }
      }, 180_000);
    },
  );

  it('the docs show the light 1440 pictures the tests compare', () => {
    const names = ['sign-in', ...SHOTS.map((shot) => shot.name)];
    const files = names.map((name) => ({ name, file: baseline(name, DOCS_VIEW.size, DOCS_VIEW.theme) }));
    if (UPDATE) for (const { name, file } of files) writeFileSync(join(DOCS, `${name}.png`), readFileSync(file));
    const stale = files.filter(({ name, file }) => !readFileSync(join(DOCS, `${name}.png`)).equals(readFileSync(file)));
    expect(stale.map(({ name }) => name)).toEqual([]);
  });
});
