import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { PlacementSweep } from '../../src/runtime/application/placement-sweep.js';
import { WorkerService } from '../../src/runtime/application/worker.service.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { finalExecution, waitFor } from '../support/wait.js';
import { accessibilityProblems, formSection, launchBrowser, openTab, PageTrouble, signIn } from './browser.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are loosely typed JSON
type Body = Record<string, any>;
/** What a test reads of the page's window (the tests are compiled without the DOM's types). */
type Painter = { getComputedStyle(element: unknown): { backgroundColor: string } };

describe('the dashboard shows placement: workers’ labels and drain, the job form’s fields, a run’s waitingFor', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let trouble: PageTrouble;
  let workerId: string;
  const api = () => request(t.app.getHttpServer());
  const button = (name: string) => page.getByRole('button', { name, exact: true });
  const worker = async () =>
    ((await api().get('/workers').expect(200)).body.items as Body[]).find((w) => w.id === workerId)!;

  beforeAll(async () => {
    t = await createTestApp({ role: 'all', env: { ORBIT_WORKER_LABELS: 'region=eu,disk=ssd' } });
    await t.app.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    workerId = t.app.get(WorkerService).id;
    browser = await launchBrowser();
    ({ page, trouble } = await openTab(browser, baseUrl));
    await signIn(page, TEST_ADMIN_TOKEN);
    await page.getByRole('link', { name: 'Overview' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => expect(trouble).toEqual({ errors: [], dialogs: [] }));

  it('Workers shows the labels; Drain makes the worker draining, Resume undoes it', async () => {
    await page.goto('/ui/workers');
    const row = page.getByRole('row').filter({ hasText: workerId });
    await row.getByText('disk=ssd, host=', { exact: false }).waitFor();
    expect(await row.textContent()).toContain('region=eu');
    await row.getByRole('button', { name: `Drain ${workerId}` }).click();
    await row.getByRole('cell', { name: 'draining', exact: true }).waitFor();
    expect(await worker()).toMatchObject({ draining: true });
    expect(await accessibilityProblems(page)).toEqual([]);
    await row.getByRole('button', { name: `Resume ${workerId}` }).click();
    await row.getByRole('cell', { name: 'live', exact: true }).waitFor();
    expect(await worker()).toMatchObject({ draining: false });
  });

  it('Workers draws a lane per worker: its last hour of runs, each a bar from start to end, coloured, linked to the run', async () => {
    const runs: Body[] = [];
    for (const [name, command] of [
      ['ui-lane-ok', 'sleep 0.3'],
      ['ui-lane-bad', 'false'],
    ]) {
      const job = (await api().post('/jobs').send({ name, command, cronExpression: null, maxRetries: 0 }).expect(201))
        .body as Body;
      const run = (await api().post(`/jobs/${job.id}/executions`).send({}).expect(201)).body as Body;
      runs.push(await finalExecution((path) => api().get(path), run.id as string));
    }
    expect(runs.map((run) => run.status)).toEqual(['SUCCEEDED', 'FAILED']);
    await page.goto('/ui/workers');
    const lane = page
      .getByRole('list', { name: 'Runs per worker' })
      .getByRole('listitem')
      .filter({ hasText: workerId });
    const ok = lane.getByRole('link', { name: /^ui-lane-ok SUCCEEDED, started .*, took \d+ ms$/ });
    const bad = lane.getByRole('link', { name: /^ui-lane-bad FAILED, started / });
    await bad.waitFor();
    const [okBox, badBox] = [(await ok.boundingBox())!, (await bad.boundingBox())!];
    // placed by time: the first run's bar is left of the second's, and at least as wide (it took longer)
    expect(okBox.x).toBeLessThan(badBox.x);
    expect(okBox.width).toBeGreaterThanOrEqual(badBox.width);
    const colour = (link: typeof ok) =>
      link.evaluate(
        (a: { parentElement: object; ownerDocument: { defaultView: Painter } }) =>
          a.ownerDocument.defaultView.getComputedStyle(a.parentElement).backgroundColor,
      );
    expect(await colour(ok)).not.toEqual(await colour(bad));
    expect(await accessibilityProblems(page)).toEqual([]);
    // the later bar is drawn over the earlier (a second apart, they share a pixel of the hour)
    await bad.click();
    await page.waitForURL(`**/ui/executions/${String(runs[1]!.id)}`);
  });

  it('the job form sets the selector, runOn, a group and the priority, and shows a refused limit beside its field', async () => {
    await api().post('/concurrency-groups').send({ name: 'ui-group', limit: 2 }).expect(201);
    await page.goto('/ui/jobs/new');
    await page.getByLabel('Name').fill('ui-placed');
    await page.getByLabel('Command').fill('true');
    await page.getByLabel('Cron expression').fill('@daily');
    await formSection(page, 'Where it runs').toggle();
    await page.getByLabel('Worker selector').fill('region=eu, disk=ssd');
    await page.getByLabel('Run on').selectOption('all');
    await page.getByLabel('Priority').fill('7');
    await page.getByLabel('Max concurrent').fill('0');
    await button('Save').click();
    await page.locator('#maxConcurrent-error').getByText('maxConcurrent must be null or an integer').waitFor();
    expect(await page.getByLabel('Max concurrent').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Max concurrent').fill('');
    await page.getByLabel('Concurrency group').fill('ui-group');
    await button('Save').click();
    await page.getByRole('heading', { name: 'ui-placed', level: 1 }).waitFor();
    const jobs = (await api().get('/jobs?name=ui-placed').expect(200)).body.items as Body[];
    expect(jobs[0]).toMatchObject({
      workerSelector: { region: 'eu', disk: 'ssd' },
      runOn: 'all',
      maxConcurrent: null,
      concurrencyGroup: 'ui-group',
      priority: 7,
    });
    await page.goto(`/ui/jobs/${jobs[0]!.id}/edit`);
    expect(await page.getByLabel('Worker selector').inputValue()).toBe('disk=ssd, region=eu');
    expect(await page.getByLabel('Run on').inputValue()).toBe('all');
  });

  it('a refused value in a folded section opens it on Save, its message beside the field; a placed job opens "Where it runs" to edit', async () => {
    await page.goto('/ui/jobs/new');
    const where = formSection(page, 'Where it runs');
    expect(await where.isOpen()).toBe(false);
    await page.getByLabel('Name').fill('ui-priority');
    await page.getByLabel('Command').fill('true');
    await page.getByLabel('Cron expression').fill('@daily');
    await where.toggle();
    await page.getByLabel('Priority').fill('500');
    await where.toggle(); // folded again before saving
    expect(await where.isOpen()).toBe(false);
    const message = page.locator('#priority-error').getByText('priority must be an integer from -100 to 100');
    await button('Save').click();
    await message.waitFor(); // visible: the section opened
    expect(await where.isOpen()).toBe(true);
    expect(await page.getByLabel('Priority').getAttribute('aria-describedby')).toContain('priority-error');
    expect(await formSection(page, 'Alerts').isOpen()).toBe(false);
    expect(await accessibilityProblems(page)).toEqual([]);
    // folded once more, the next refused save opens it again
    await where.toggle();
    await button('Save').click();
    await waitFor(async () => ((await where.isOpen()) ? true : undefined), 'the section to open again');
    await message.waitFor();

    const placed = (
      await api()
        .post('/jobs')
        .send({ name: 'ui-low', command: 'true', cronExpression: '@daily', priority: -5 })
        .expect(201)
    ).body as Body;
    await page.goto(`/ui/jobs/${placed.id}/edit`);
    await page.getByRole('heading', { name: 'Edit job', level: 1 }).waitFor();
    expect(await where.isOpen()).toBe(true);
    expect(await page.getByLabel('Priority').inputValue()).toBe('-5');
    for (const folded of ['Which slots fire', 'Chains and parameters', 'Alerts']) {
      expect([folded, await formSection(page, folded).isOpen()]).toEqual([folded, false]);
    }
  });

  it('a queued run no live worker can take says what it waits for on its page', async () => {
    const job = (
      await api()
        .post('/jobs')
        .send({ name: 'ui-mars', command: 'true', cronExpression: '@daily', workerSelector: { region: 'mars' } })
        .expect(201)
    ).body as Body;
    const run = (await api().post(`/jobs/${job.id}/executions`).expect(201)).body as Body;
    await t.app.get(PlacementSweep).sweep();
    await page.goto(`/ui/executions/${run.id}`);
    await page.getByRole('status').getByText('Waiting: no live worker has region=mars').waitFor();
    await waitFor(async () => ((await accessibilityProblems(page)).length === 0 ? true : undefined), 'no a11y problem');
  });
});
