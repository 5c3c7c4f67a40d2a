import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { accessibilityProblems, formSection, launchBrowser, openTab, PageTrouble, signIn } from './browser.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are loosely typed JSON
type Body = Record<string, any>;

describe('the dashboard: chains, parameters and run-at', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let trouble: PageTrouble;
  const api = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    t = await createTestApp({ role: 'all', env: { ORBIT_POLL_INTERVAL_MS: '200' } });
    await t.app.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchBrowser();
    ({ page, trouble } = await openTab(browser, baseUrl));
    await signIn(page, TEST_ADMIN_TOKEN);
    await page.getByRole('link', { name: 'Overview' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => {
    expect(trouble.errors).toEqual([]);
  });

  const jobNamed = async (name: string): Promise<Body> =>
    waitFor(async () => (await api().get('/jobs').query({ name })).body.items.find((j: Body) => j.name === name), name);

  it('the job form makes a job with no schedule, a trigger, parameters, a window and jitter', async () => {
    await api().post('/jobs').send({ name: 'extract', command: 'true', cronExpression: '0 3 * * *' }).expect(201);
    await page.goto('/ui/jobs/new');
    await page.getByLabel('Name', { exact: true }).fill('load');
    await page.getByLabel('Command').fill('echo "$ORBIT_PARAM_TARGET"');
    await page.getByLabel('No schedule').check();
    await formSection(page, 'Chains and parameters').toggle();
    await page.getByLabel('Runs after').fill('extract: SUCCEEDED, FAILED');
    const parameters = page.getByRole('group', { name: 'Parameters', exact: true });
    await parameters.getByRole('button', { name: 'Add parameter' }).click();
    const target = parameters.getByRole('group', { name: 'Parameter 1', exact: true });
    await target.getByLabel('Name').fill('TARGET');
    await target.getByLabel('Default').fill('staging');
    await target.getByLabel('Pattern').fill('staging|production');
    await formSection(page, 'Which slots fire').toggle();
    await page.getByLabel('Starts at').fill('2026-01-01T00:00:00Z');
    await page.getByLabel('Jitter (seconds)').fill('5000');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('jitterSeconds must be an integer from 0 to 3600').waitFor(); // beside its field
    await page.getByLabel('Jitter (seconds)').fill('30');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { name: /load/, level: 1 }).waitFor();

    expect(await jobNamed('load')).toMatchObject({
      cronExpression: null,
      triggers: [{ after: 'extract', on: ['SUCCEEDED', 'FAILED'] }],
      parameters: [{ name: 'TARGET', default: 'staging', pattern: 'staging|production', required: false }],
      startsAt: '2026-01-01T00:00:00.000Z',
      jitterSeconds: 30,
    });
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it('the job page shows the chain both ways, with links', async () => {
    const load = await jobNamed('load');
    const extract = await jobNamed('extract');
    await page.goto(`/ui/jobs/${load.id}`);
    const chain = page.getByRole('region', { name: 'Chain' });
    await chain.getByRole('link', { name: 'extract' }).waitFor();
    expect(await chain.textContent()).toContain('extract on SUCCEEDED, FAILED');

    await page.goto(`/ui/jobs/${extract.id}`);
    await page.getByRole('region', { name: 'Chain' }).getByRole('link', { name: 'load' }).waitFor();
  });

  it('"Run with parameters" is made from the declaration; a bad value gets the API message; the run shows its values and its upstream', async () => {
    const load = await jobNamed('load');
    await page.goto(`/ui/jobs/${load.id}`);
    const form = page.getByRole('region', { name: 'Run with parameters' });
    expect(await form.getByLabel('TARGET').inputValue()).toBe('staging');
    await form.getByLabel('TARGET').fill('moon');
    await form.getByRole('button', { name: 'Run' }).click();
    await form.getByText('parameters.TARGET must match staging|production').waitFor();
    await form.getByLabel('TARGET').fill('production');
    await form.getByRole('button', { name: 'Run' }).click();
    await page.waitForURL(/\/ui\/executions\//);
    expect(await page.locator('ul.parameters').textContent()).toBe('TARGET = production');

    // a run of extract triggers load: the chained run links to its upstream run
    const extract = await jobNamed('extract');
    const upstream = (await api().post(`/jobs/${extract.id}/executions`).expect(201)).body as Body;
    const chained = await waitFor(async () => {
      const { body } = await api().get('/executions').query({ jobId: load.id });
      return (body.items as Body[]).find((e) => e.trigger === 'CHAIN');
    }, 'the chained run');
    await page.goto(`/ui/executions/${chained.id}`);
    await page.getByRole('link', { name: 'the upstream run' }).click();
    await page.waitForURL(new RegExp(`/ui/executions/${upstream.id}`));
  });

  it('a run-at instant queues the run due then', async () => {
    const load = await jobNamed('load');
    await page.goto(`/ui/jobs/${load.id}`);
    const form = page.getByRole('region', { name: 'Run with parameters' });
    // the browser's zone is UTC (see openTab): the local time typed is the UTC instant
    const at = new Date(Math.ceil(Date.now() / 86_400_000 + 30) * 86_400_000 + 12 * 3_600_000);
    await form.getByLabel('Run at').fill(at.toISOString().slice(0, 19));
    await form.getByRole('button', { name: 'Queue run' }).click();
    await page.waitForURL(/\/ui\/executions\//);
    const id = page.url().split('/').pop()!;
    const queued = (await api().get(`/executions/${id}`).expect(200)).body as Body;
    expect(queued).toMatchObject({ status: 'QUEUED', trigger: 'MANUAL', dueAt: at.toISOString() });
  });
});
