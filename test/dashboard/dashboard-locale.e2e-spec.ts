import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { launchBrowser, openTab, PageTrouble, signIn } from './browser.js';

/** Keeps each text a canvas draws (uPlot's axes are drawn, not in the DOM) in window.drawnText. */
const RECORD_CANVAS_TEXT = `
  window.drawnText = [];
  const fillText = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    window.drawnText.push(String(text));
    return fillText.call(this, text, ...rest);
  };
`;

/** What the job page shows in one browser language: its dates, its run lengths, its chart's axes. */
interface Shown {
  /** The History table's instants, as written on the page (in their titles: the cells say how long ago). */
  times: string[];
  /** The History table's "Took" cells. */
  took: string[];
  /** Every text drawn into the chart's canvas. */
  axes: string[];
  trouble: PageTrouble;
}

/**
 * The dashboard in the browser's own language: dates and numbers on the page and in the chart of
 * durations written alike, in the locale the browser reports, even one Intl refuses as it is.
 */
describe('the dashboard in the browser’s language', () => {
  let t: TestApp;
  let browser: Browser;
  let baseUrl: string;
  let jobId: string;
  const api = () => request(t.app.getHttpServer());

  async function runOnce(): Promise<void> {
    const { id } = (await api().post(`/jobs/${jobId}/executions`).expect(201)).body as { id: string };
    await waitFor(async () => {
      const { status } = (await api().get(`/executions/${id}`).expect(200)).body as { status: string };
      return ['QUEUED', 'RUNNING'].includes(status) ? undefined : status;
    }, `run ${id} to end`);
  }

  /** Signs in a new tab in `locale`, opens the job and waits for the chart to be drawn. */
  async function jobPageIn(locale: string): Promise<Shown> {
    const { context, page, trouble } = await openTab(browser, baseUrl, locale);
    try {
      await context.addInitScript(RECORD_CANVAS_TEXT);
      await signIn(page, TEST_ADMIN_TOKEN);
      await page.goto(`/ui/jobs/${jobId}`);
      const history = page.getByRole('region', { name: 'History' });
      await waitFor(async () => ((await history.locator('tbody tr').count()) === 3 ? true : undefined), '3 runs');
      // the chart, or its own words when its chunk failed to load
      const durations = page.getByRole('region', { name: 'Durations' });
      await durations.locator('canvas, .problem').first().waitFor();
      const failed = await durations.locator('.problem').allTextContents();
      const axes =
        failed.length > 0
          ? []
          : await waitFor(async () => {
              const drawn = await page.evaluate<string[]>('window.drawnText');
              // the duration axis, drawn with the rest: its ticks in the page's units (0 ms, 1.2 s)
              return drawn.some((text) => /^\d+([.,]\d+)? m?s$/.test(text)) ? drawn : undefined;
            }, 'the chart drawn');
      return {
        times: await history
          .locator('tbody time')
          .evaluateAll((times: { title: string }[]) => times.map((t) => t.title)),
        took: await tookCells(page),
        axes,
        trouble: { errors: [...trouble.errors, ...failed], dialogs: trouble.dialogs },
      };
    } finally {
      await context.close();
    }
  }

  async function tookCells(page: Page): Promise<string[]> {
    const history = page.getByRole('region', { name: 'History' });
    const headers = await history.locator('thead th').allTextContents();
    return history.locator(`tbody td:nth-child(${headers.indexOf('Took') + 1})`).allTextContents();
  }

  beforeAll(async () => {
    t = await createTestApp({ role: 'all' });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const job = await api()
      .post('/jobs')
      .send({ name: 'locale-timed', command: 'sleep 1.2', cronExpression: '0 3 * * *' })
      .expect(201);
    jobId = (job.body as { id: string }).id;
    for (let i = 0; i < 3; i++) await runOnce();
    browser = await launchBrowser();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('en-US@posix (Chromium’s language on Linux with LANG=C) shows the job page and its chart, in US English', async () => {
    const shown = await jobPageIn('en-US@posix');
    expect(shown.trouble).toEqual({ errors: [], dialogs: [] });
    for (const time of shown.times) expect(time).toMatch(/^\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}:\d{2} UTC$/);
    for (const took of shown.took) expect(took).toMatch(/^1\.\d s$/);
    const days = shown.times.map((time) => time.split(',')[0]!);
    expect(days.some((day) => shown.axes.includes(day))).toBe(true);
  });

  it('de-DE writes the chart’s axes in the German formats the page uses', async () => {
    const shown = await jobPageIn('de-DE');
    expect(shown.trouble).toEqual({ errors: [], dialogs: [] });
    for (const time of shown.times) expect(time).toMatch(/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}:\d{2} UTC$/);
    for (const took of shown.took) expect(took).toMatch(/^1,\d s$/);
    // the time axis: the page's date under the first tick of the day, times as the page writes them
    const days = shown.times.map((time) => time.split(',')[0]!);
    expect(days.some((day) => shown.axes.includes(day))).toBe(true);
    expect(shown.axes.filter((text) => /^\d{2}:\d{2}(:\d{2})?$/.test(text)).length).toBeGreaterThan(1);
    // the duration axis: German decimals in the page's units; nowhere a US date, a 12-hour time or a decimal point
    expect(shown.axes.some((text) => /^\d+,\d+ s$/.test(text))).toBe(true);
    expect(shown.axes.filter((text) => /\/|am|pm|^\d+\.\d+$/i.test(text))).toEqual([]);
  });
});
