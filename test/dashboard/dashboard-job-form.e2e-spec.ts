import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page, Request } from 'playwright-core';
import request from 'supertest';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { accessibilityProblems, formSection, launchBrowser, openTab, PageTrouble, signIn } from './browser.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are loosely typed JSON
type Body = Record<string, any>;

describe('the dashboard: the job form', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let trouble: PageTrouble;
  /** The job saves the tab sent: what reached the API. */
  const saves: Request[] = [];
  const api = () => request(t.app.getHttpServer());
  const button = (name: string) => page.getByRole('button', { name, exact: true });
  const field = (label: string) => page.getByLabel(label, { exact: true });

  /** What the form shows at a field: the texts its aria-describedby names, less its hint; '' when it is not marked invalid. */
  async function errorAt(input: Locator): Promise<string> {
    if ((await input.getAttribute('aria-invalid')) !== 'true') return '';
    const described = ((await input.getAttribute('aria-describedby')) ?? '')
      .split(' ')
      .filter((id) => id.endsWith('-error'));
    const texts = await Promise.all(described.map((id) => page.locator(`#${id}`).textContent()));
    return texts.join(' ');
  }

  async function waitForErrorAt(input: Locator, pattern: RegExp): Promise<string> {
    let last = '';
    try {
      return await waitFor(async () => {
        last = await errorAt(input);
        return pattern.test(last) ? last : undefined;
      }, `${pattern} at ${input.toString()}`);
    } catch (error) {
      throw new Error(`${(error as Error).message}; it last showed: ${JSON.stringify(last)}`, { cause: error });
    }
  }

  async function textOf(locator: Locator, pattern: RegExp): Promise<string> {
    return waitFor(async () => {
      const text = (await locator.textContent()) ?? '';
      return pattern.test(text) ? text : undefined;
    }, `${pattern} in ${locator.toString()}`);
  }

  const jobNamed = async (name: string): Promise<Body | undefined> =>
    ((await api().get('/jobs').query({ name })).body.items as Body[]).find((job) => job.name === name);

  beforeAll(async () => {
    t = await createTestApp({ role: 'all' });
    await t.app.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchBrowser();
    ({ page, trouble } = await openTab(browser, baseUrl));
    page.on('request', (sent) => {
      if (['POST', 'PATCH'].includes(sent.method()) && new URL(sent.url()).pathname.startsWith('/jobs'))
        saves.push(sent);
    });
    await signIn(page, TEST_ADMIN_TOKEN);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  beforeEach(() => {
    saves.length = 0;
  });

  afterEach(() => {
    expect(trouble.errors).toEqual([]);
  });

  it('Save flags every invalid field at once, by the rules the API publishes, before sending anything', async () => {
    await page.goto('/ui/jobs/new');
    await field('Cron expression').fill('61 * * * *');
    await field('Max retries').fill('1000');
    await field('Timeout (seconds)').fill('long');
    await formSection(page, 'Where it runs').toggle();
    await field('Priority').fill('500');
    await button('Save').click();

    await waitForErrorAt(field('Priority'), /^priority must be an integer from -100 to 100$/);
    expect({
      name: await errorAt(field('Name')),
      command: await errorAt(field('Command')),
      cron: await errorAt(field('Cron expression')),
      maxRetries: await errorAt(field('Max retries')),
      timeout: await errorAt(field('Timeout (seconds)')),
      description: await errorAt(field('Description')),
    }).toEqual({
      name: 'name must not be blank',
      command: 'command must not be blank',
      cron: expect.stringMatching(/^cronExpression '61 \* \* \* \*' is not valid/),
      maxRetries: 'maxRetries must be an integer from 0 to 100',
      timeout: 'timeoutSeconds must be an integer from 1 to 604800',
      description: '',
    });
    expect(saves).toEqual([]);
    expect(await page.getByRole('alert').textContent()).toBe('');
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it('an error clears when its field changes; the others stay until theirs do', async () => {
    await page.goto('/ui/jobs/new');
    await field('Name').fill('clears');
    await field('Command').fill('true');
    await field('Cron expression').fill('@daily');
    await field('Max retries').fill('lots');
    await field('Timeout (seconds)').fill('long');
    await button('Save').click();
    await waitForErrorAt(field('Max retries'), /^maxRetries must be an integer/);
    await waitForErrorAt(field('Timeout (seconds)'), /^timeoutSeconds must be an integer/);

    await field('Max retries').fill('3');
    expect(await errorAt(field('Max retries'))).toBe('');
    expect(await page.locator('#maxRetries-error').count()).toBe(0);
    expect(await errorAt(field('Timeout (seconds)'))).toMatch(/^timeoutSeconds must be an integer/);
    await field('Timeout (seconds)').fill('60');
    expect(await errorAt(field('Timeout (seconds)'))).toBe('');
  });

  it('the API has the last word: what the browser cannot judge is shown at its field, every message of the answer', async () => {
    await page.goto('/ui/jobs/new');
    await field('Name').fill('last-word');
    await field('Command').fill('true');
    await field('Cron expression').fill('@daily');
    await formSection(page, 'Which slots fire').toggle();
    await field('Starts at').fill('tomorrow');
    await field('Ends at').fill('later');
    await button('Save').click();
    await waitForErrorAt(field('Starts at'), /^startsAt must be a valid ISO 8601 date string$/);
    expect(await errorAt(field('Ends at'))).toBe('endsAt must be a valid ISO 8601 date string');
    expect(saves).toHaveLength(1);
    expect(await jobNamed('last-word')).toBeUndefined();
  });

  it('a body over the size limit is shown at the field that made it so', async () => {
    await page.goto('/ui/jobs/new');
    await field('Name').fill('too-large');
    await field('Command').fill(`echo ${'x'.repeat(70 * 1024)}`);
    await field('Cron expression').fill('@daily');
    await button('Save').click();
    await waitForErrorAt(field('Command'), /^Request body is larger than 64 KiB; command is 70\.\d KiB of it$/);
    expect(await page.getByRole('alert').textContent()).toBe('');
    expect(await errorAt(field('Name'))).toBe('');
  });

  it('"No schedule" sits beside its label, the box first', async () => {
    await page.goto('/ui/jobs/new');
    const box = (await field('No schedule').boundingBox())!;
    const label = (await page.locator('label[for="noSchedule"]').boundingBox())!;
    expect(Math.abs(box.y + box.height / 2 - (label.y + label.height / 2))).toBeLessThan(3);
    expect(label.x - (box.x + box.width)).toBeGreaterThanOrEqual(0);
    expect(label.x - (box.x + box.width)).toBeLessThan(16);
  });

  it('parameters are edited as rows: add, fill, remove; a bad cell is flagged in its row; the edit form shows the rows', async () => {
    await page.goto('/ui/jobs/new');
    await field('Name').fill('deploy');
    await field('Command').fill('echo "$ORBIT_PARAM_TARGET"');
    await field('No schedule').check();
    await formSection(page, 'Chains and parameters').toggle();
    const parameters = page.getByRole('group', { name: 'Parameters', exact: true });
    const row = (n: number) => parameters.getByRole('group', { name: `Parameter ${n}`, exact: true });
    const cell = (n: number, label: string) => row(n).getByLabel(label);

    await parameters.getByRole('button', { name: 'Add parameter' }).click();
    await cell(1, 'Name').fill('TARGET');
    await cell(1, 'Default').fill('staging');
    await cell(1, 'Description').fill('Where to deploy');
    await cell(1, 'Pattern').fill('staging|production');
    await parameters.getByRole('button', { name: 'Add parameter' }).click();
    await cell(2, 'Name').fill('scratch');
    await parameters.getByRole('button', { name: 'Add parameter' }).click();
    await cell(3, 'Name').fill('dry run');
    await cell(3, 'Required').check();
    const required = (await cell(3, 'Required').boundingBox())!;
    const requiredLabel = (await row(3).getByText('Required', { exact: true }).boundingBox())!;
    expect(Math.abs(required.y + required.height / 2 - (requiredLabel.y + requiredLabel.height / 2))).toBeLessThan(3);

    await button('Save').click();
    await waitForErrorAt(cell(3, 'Name'), /^parameters\[2\]\.name must match \^\[A-Z\]\[A-Z0-9_\]\*\$$/);
    expect(await errorAt(cell(2, 'Name'))).toMatch(/^parameters\[1\]\.name must match/);
    expect(await errorAt(cell(1, 'Name'))).toBe('');
    expect(saves).toEqual([]);

    await cell(3, 'Name').fill('DRY_RUN');
    expect(await errorAt(cell(3, 'Name'))).toBe('');
    await parameters.getByRole('button', { name: 'Remove parameter 2' }).click();
    expect(await row(3).count()).toBe(0);
    expect(await cell(2, 'Name').inputValue()).toBe('DRY_RUN');
    expect(await errorAt(cell(2, 'Name'))).toBe('');
    // what only the API judges (RE2) lands at its cell too
    await cell(1, 'Pattern').fill('staging|(production');
    await button('Save').click();
    await waitForErrorAt(cell(1, 'Pattern'), /^parameters\[0\]\.pattern is not a regular expression Orbit accepts/);
    expect(saves).toHaveLength(1);
    await cell(1, 'Pattern').fill('staging|production');
    await button('Save').click();
    await page.getByRole('heading', { name: /deploy/, level: 1 }).waitFor();
    expect((await jobNamed('deploy'))!.parameters).toEqual([
      {
        name: 'TARGET',
        description: 'Where to deploy',
        default: 'staging',
        required: false,
        pattern: 'staging|production',
      },
      { name: 'DRY_RUN', description: null, default: null, required: true, pattern: null },
    ]);

    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await waitFor(async () => ((await cell(2, 'Name').count()) === 1 ? true : undefined), 'the rows of the job');
    expect(await formSection(page, 'Chains and parameters').isOpen()).toBe(true);
    expect(await cell(1, 'Pattern').inputValue()).toBe('staging|production');
    expect(await cell(2, 'Required').isChecked()).toBe(true);
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it('a parameter too large for the body is shown at Parameters', async () => {
    await page.goto('/ui/jobs/new');
    await field('Name').fill('many-parameters');
    await field('Command').fill('true');
    await field('No schedule').check();
    await formSection(page, 'Chains and parameters').toggle();
    const parameters = page.getByRole('group', { name: 'Parameters', exact: true });
    for (let n = 1; n <= 17; n += 1) {
      await parameters.getByRole('button', { name: 'Add parameter' }).click();
      const row = parameters.getByRole('group', { name: `Parameter ${n}`, exact: true });
      await row.getByLabel('Name').fill(`P${n}`);
      await row.getByLabel('Default').fill('v'.repeat(4000));
    }
    await button('Save').click();
    const error = page.locator('#parameters-error');
    await textOf(error, /^Request body is larger than 64 KiB; parameters is 6\d\.\d KiB of it$/);
    expect((await parameters.getAttribute('aria-describedby'))!.split(' ')).toContain('parameters-error');
    expect(await errorAt(field('Command'))).toBe('');
  });
});
