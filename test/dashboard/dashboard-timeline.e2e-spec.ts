import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { accessibilityProblems, launchBrowser, openTab, PageTrouble, signIn } from './browser.js';
import { jobWithEveryFate } from './timeline-setup.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are loosely typed JSON
type Body = Record<string, any>;
/** What a test reads of the page's window (the tests are compiled without the DOM's types). */
type Viewer = { getComputedStyle(element: unknown): { borderRightWidth: string; paddingRight: string } };
type Painter = { getComputedStyle(element: unknown): { backgroundImage: string } };

/** A real Orbit (API, scheduler and worker) and the dashboard in Chromium: the timeline and pausing with a note. */
describe('the dashboard: why a job did not run, and pausing with a note', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let trouble: PageTrouble;
  const api = () => request(t.app.getHttpServer());
  const button = (name: string) => page.getByRole('button', { name, exact: true });

  async function createJob(fields: Body): Promise<Body> {
    const res = await api()
      .post('/jobs')
      .send({ name: `ui-timeline-${Math.random().toString(36).slice(2, 10)}`, command: 'true', ...fields });
    expect(res.status).toBe(201);
    return res.body as Body;
  }

  beforeAll(async () => {
    t = await createTestApp({ role: 'all' });
    await t.app.listen(0, '127.0.0.1');
    browser = await launchBrowser();
    ({ page, trouble } = await openTab(
      browser,
      `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`,
    ));
    await signIn(page, TEST_ADMIN_TOKEN);
    await page.getByRole('link', { name: 'Overview' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => expect(trouble).toEqual({ errors: [], dialogs: [] }));

  it('the timeline shows a fired, a skipped (FORBID) and a missed slot', async () => {
    const { job, from, to } = await jobWithEveryFate(t, `ui-timeline-${Math.random().toString(36).slice(2, 10)}`);
    await page.goto(`/ui/jobs/${job.id}?from=${from}&to=${to}`);
    const slots = page.getByRole('list', { name: 'Slots' });
    await slots.getByText('fired', { exact: true }).first().waitFor();
    const text = (await slots.textContent()) ?? '';
    expect(text).toMatch(/skipped.*FORBID: an earlier run was (QUEUED|RUNNING)/);
    expect(text).toMatch(/missed.*no scheduler ran at its time; \d+ slots? collapsed into one run of .* \(RUN_ONCE\)/);
    expect(text).toMatch(/paused.*the job was paused/);
    // a fired slot links to its run
    const firedRow = slots
      .getByRole('listitem')
      .filter({ hasText: /^fired/ })
      .first();
    await firedRow.getByRole('link').click();
    await page.waitForURL(/\/ui\/executions\/[0-9a-f-]{36}$/);
    await page.goBack();
    // the window lives in the address: Earlier moves it back by its length
    await page.getByRole('navigation', { name: 'Timeline window' }).getByRole('link', { name: 'Earlier' }).click();
    await page.waitForURL((url) => url.searchParams.get('to') === new Date(Date.parse(to) - 65_000).toISOString());
    await page.getByRole('heading', { name: 'Timeline', exact: true }).waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it('the band merges neighbouring slots of equal fate into one bar, hatched only where the slot did not run', async () => {
    const { job, from, to } = await jobWithEveryFate(t, `ui-band-${Math.random().toString(36).slice(2, 10)}`);
    const slots = (await api().get(`/jobs/${job.id}/timeline`).query({ from, to }).expect(200)).body.slots as Body[];
    const stretches = slots.filter(
      (slot, i) =>
        i === 0 ||
        `${slot.fate}${slot.execution?.status}` !== `${slots[i - 1]!.fate}${slots[i - 1]!.execution?.status}`,
    );
    await page.goto(`/ui/jobs/${job.id}?from=${from}&to=${to}`);
    await page.getByRole('list', { name: 'Slots' }).waitFor();
    const bars = await page
      .locator('.timeline-band .segment')
      .evaluateAll((elements: { className: string; ownerDocument: { defaultView: Painter } }[]) =>
        elements.map((element) => ({
          fate: /fate-(\w+)/.exec(element.className)![1],
          hatched: element.ownerDocument.defaultView
            .getComputedStyle(element)
            .backgroundImage.startsWith('repeating-linear-gradient'),
        })),
      );
    expect(bars.map((bar) => bar.fate)).toEqual(stretches.map((slot) => slot.fate));
    expect(bars.length).toBeLessThan(slots.length / 2);
    for (const bar of bars) expect(bar).toEqual({ fate: bar.fate, hatched: ['paused', 'missed'].includes(bar.fate!) });
    expect(bars.map((bar) => bar.fate)).toEqual(expect.arrayContaining(['fired', 'skipped', 'missed', 'paused']));
  });

  it("the running scheduler wakes at a pause's resume instant and resumes the job, which the page shows", async () => {
    const job = await createJob({ cronExpression: '0 3 * * *' });
    const resumeAt = new Date(Date.now() + 2000).toISOString();
    await api().post(`/jobs/${job.id}/pause`).send({ note: 'two seconds', resumeAt }).expect(200);
    await page.goto(`/ui/jobs/${job.id}`);
    await page.getByText('Note: two seconds').waitFor();
    await button('Pause').waitFor({ timeout: 10_000 }); // live: the job.resumed event re-reads the page
    expect((await api().get(`/jobs/${job.id}`)).body).toMatchObject({
      enabled: true,
      pausedNote: null,
      resumeAt: null,
    });
    const resumed = await t.db.sql(`SELECT at FROM events WHERE job_id = $1 AND type = 'job.resumed'`, [job.id]);
    expect(resumed.rows).toEqual([{ at: new Date(resumeAt) }]);
  });

  it("the pause dialog's fields fit inside it, on a page taller than the window", async () => {
    const job = await createJob({ cronExpression: '0 3 * * *' });
    // a window shorter than the job page, so that the page could scroll behind the dialog
    await page.setViewportSize({ width: 1280, height: 400 });
    try {
      await page.goto(`/ui/jobs/${job.id}`);
      await button('Pause').click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Note').waitFor();
      // the right edge of the dialog's content: inside its border and padding
      const box = (await dialog.boundingBox())!;
      const { border, padding } = await dialog.evaluate((element: { ownerDocument: { defaultView: Viewer } }) => {
        const style = element.ownerDocument.defaultView.getComputedStyle(element);
        return { border: parseFloat(style.borderRightWidth), padding: parseFloat(style.paddingRight) };
      });
      const inner = box.x + box.width - border - padding;
      for (const label of ['Note', /Resume at/]) {
        const field = (await dialog.getByLabel(label).boundingBox())!;
        const overflow = Math.max(0, field.x + field.width - inner);
        expect({ label: String(label), overflowPx: overflow }).toEqual({ label: String(label), overflowPx: 0 });
      }
      // the page behind stays where it is: the overlay covers all that can be seen of it
      expect(await page.evaluate('document.documentElement.scrollHeight > innerHeight')).toBe(true);
      await page.mouse.wheel(0, 2000);
      expect(await page.evaluate('scrollY')).toBe(0);
      await dialog.getByRole('button', { name: 'Keep it running' }).click();
      await dialog.waitFor({ state: 'hidden' });
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
    }
  });

  it('pause with a note, resume', async () => {
    const job = await createJob({ cronExpression: '0 3 * * *' });
    await page.goto(`/ui/jobs/${job.id}`);
    await button('Pause').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Note').fill('Waiting for the new disk');
    await dialog.getByLabel(/Resume at/).fill('2020-01-01T09:00');
    await dialog.getByRole('button', { name: 'Pause', exact: true }).click();
    await dialog.getByRole('alert').filter({ hasText: 'resumeAt must be in the future' }).waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);

    const resumeAt = new Date(Date.now() + 3 * 86_400_000);
    const local = resumeAt.toISOString().slice(0, 16); // the browser runs in UTC
    await dialog.getByLabel(/Resume at/).fill(local);
    await dialog.getByRole('button', { name: 'Pause', exact: true }).click();
    await button('Resume').waitFor();
    await page.getByText('Note: Waiting for the new disk').waitFor();
    await page.getByText(/Resumes by itself at/).waitFor();
    expect((await api().get(`/jobs/${job.id}`)).body).toMatchObject({
      enabled: false,
      pausedNote: 'Waiting for the new disk',
      resumeAt: `${local}:00.000Z`,
    });

    await page.goto(`/ui/jobs?name=${job.name}`);
    await page
      .getByRole('row', { name: new RegExp(job.name) })
      .getByText('Waiting for the new disk')
      .waitFor();

    await page.goto(`/ui/jobs/${job.id}`);
    await button('Resume').click();
    await button('Pause').waitFor();
    expect(await page.getByText('Note: Waiting for the new disk').count()).toBe(0);
    expect((await api().get(`/jobs/${job.id}`)).body).toMatchObject({
      enabled: true,
      pausedNote: null,
      resumeAt: null,
    });
  });
});
