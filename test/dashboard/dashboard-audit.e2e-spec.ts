import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { accessibilityProblems, launchBrowser, openTab, PageTrouble, signIn } from './browser.js';

/** An operator whose name is markup: the page must show it as text, and filter by it. */
const OPERATOR = 'ui-ops <img src=x onerror=alert(1)>';
/** More than the page's 50 rows, so that the filtered list has a second page. */
const JOBS = 52;

interface Row {
  actor: string;
  action: string;
}

describe('the dashboard: the audit trail, filtered', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let trouble: PageTrouble;
  const jobIds: string[] = [];
  const api = () => request(t.app.getHttpServer());

  /** The table's rows once they are `expected` (or what it last showed, after 15 s). */
  async function rowsBecome(expected: (rows: Row[]) => boolean, what: string): Promise<Row[]> {
    let last: Row[] = [];
    try {
      return await waitFor(async () => {
        last = await page
          .locator('main tbody tr')
          .evaluateAll((trs) =>
            trs.map((tr) => ({ actor: tr.children[1]?.textContent ?? '', action: tr.children[2]?.textContent ?? '' })),
          );
        return expected(last) ? last : undefined;
      }, what);
    } catch (error) {
      throw new Error(`${(error as Error).message}; the table last held ${JSON.stringify(last.slice(0, 5))}…`, {
        cause: error,
      });
    }
  }
  const all = (rows: Row[], keep: (row: Row) => boolean, count: number) => rows.length === count && rows.every(keep);
  const query = () => Object.fromEntries(new URL(page.url()).searchParams);

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    const operator = (await api().post('/tokens').send({ name: OPERATOR, role: 'operator' }).expect(201)).body as {
      token: string;
    };
    for (let i = 0; i < JOBS; i++) {
      const job = await api()
        .post('/jobs')
        .send({ name: `ui-audited-${i}`, command: 'true', cronExpression: '0 3 * * *' })
        .expect(201);
      jobIds.push(job.body.id as string);
    }
    const asOperator = `Bearer ${operator.token}`;
    await api().post(`/jobs/${jobIds[0]}/pause`).set('Authorization', asOperator).send({}).expect(200);
    await api().post(`/jobs/${jobIds[1]}/executions`).set('Authorization', asOperator).expect(201);

    browser = await launchBrowser();
    ({ page, trouble } = await openTab(
      browser,
      `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`,
    ));
    await signIn(page, TEST_ADMIN_TOKEN);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('filters by action, then by actor, keeps the filters in the address through a reload, and Back undoes each', async () => {
    await rowsBecome((rows) => rows.length === 50, 'the newest 50 changes');

    await page.getByLabel('Action').selectOption('job.created');
    await rowsBecome((rows) => all(rows, (row) => row.action === 'job.created', 50), '50 job.created rows');
    expect(query()).toEqual({ action: 'job.created' });
    const target = page.locator('main tbody tr').first().getByRole('link');
    expect(await target.getAttribute('href')).toBe(`/ui/jobs/${jobIds[JOBS - 1]}`);

    // the next page of a filtered list is filtered; Newest goes back to its first page
    await page.getByRole('link', { name: 'Older' }).click();
    await rowsBecome((rows) => all(rows, (row) => row.action === 'job.created', JOBS - 50), 'the rest of job.created');
    expect(query()).toEqual({ action: 'job.created', cursor: expect.any(String) });
    await page.getByRole('link', { name: 'Newest' }).click();
    await rowsBecome((rows) => rows.length === 50, 'the first page again');
    expect(query()).toEqual({ action: 'job.created' });

    // a new filter starts from the newest page
    await page.getByLabel('Action').selectOption('');
    await page.getByLabel('Actor').fill(OPERATOR);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await rowsBecome((rows) => all(rows, (row) => row.actor === OPERATOR, 2), `the operator's two changes`);
    expect(query()).toEqual({ actor: OPERATOR });
    expect((await rowsBecome(() => true, 'any')).map((row) => row.action)).toEqual([
      'execution.triggered',
      'job.paused',
    ]);

    await page.getByLabel('Action').selectOption('job.paused');
    await rowsBecome(
      (rows) => all(rows, (row) => row.action === 'job.paused' && row.actor === OPERATOR, 1),
      'one pause',
    );
    expect(query()).toEqual({ actor: OPERATOR, action: 'job.paused' });
    expect(await accessibilityProblems(page)).toEqual([]);

    await page.reload();
    await rowsBecome(
      (rows) => all(rows, (row) => row.action === 'job.paused' && row.actor === OPERATOR, 1),
      'the pause after a reload',
    );
    expect(await page.getByLabel('Action').inputValue()).toBe('job.paused');
    expect(await page.getByLabel('Actor').inputValue()).toBe(OPERATOR);

    await page.goBack();
    await rowsBecome((rows) => all(rows, (row) => row.actor === OPERATOR, 2), 'Back: the actor filter alone');
    expect(query()).toEqual({ actor: OPERATOR });
    expect(await page.getByLabel('Action').inputValue()).toBe('');
    await page.goBack(); // to the unfiltered list, where the action was set back to all
    await rowsBecome((rows) => rows.length === 50 && rows.some((row) => row.action !== 'job.created'), 'Back: all');
    await page.goBack();
    await rowsBecome((rows) => all(rows, (row) => row.action === 'job.created', 50), 'Back: the action filter');
    expect(query()).toEqual({ action: 'job.created' });
    expect(await page.getByLabel('Actor').inputValue()).toBe('');
    expect(trouble).toEqual({ errors: [], dialogs: [] });
  });

  it('a window (from, to) is kept as instants in the address; an empty one says so; Clear filters shows everything', async () => {
    await page.getByLabel('Action').selectOption('');
    await page.getByLabel('To (excluded)').fill('2020-01-01T00:00:00');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByText('No change matches.').waitFor();
    expect(query()).toEqual({ to: '2020-01-01T00:00:00.000Z' });

    await page.getByLabel('From').fill('2020-01-01T00:00:00');
    await page.getByLabel('To (excluded)').fill('2019-01-01T00:00:00');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'from must be before to' }).waitFor();

    await page.getByRole('link', { name: 'Clear filters' }).click();
    await rowsBecome((rows) => rows.length === 50, 'every change again');
    expect(query()).toEqual({});
    expect(await page.getByLabel('From').inputValue()).toBe('');
    expect(trouble).toEqual({ errors: [], dialogs: [] });
  });

  it('names each target and shows what a change changed, before → after: a pause with its note, a new schedule', async () => {
    const [paused, changed] = [jobIds[2]!, jobIds[3]!];
    await api().post(`/jobs/${paused}/pause`).send({ note: 'Waiting for the new disk' }).expect(200);
    await api().patch(`/jobs/${changed}`).send({ cronExpression: '0 4 * * *' }).expect(200);

    await page.goto(`/ui/audit?targetId=${paused}`);
    const pause = page.locator('main tbody tr').filter({ hasText: 'job.paused' });
    await pause.getByRole('link', { name: 'ui-audited-2' }).waitFor();
    expect(await pause.getByRole('listitem').allTextContents()).toEqual([
      'enabled: true → false',
      'pausedNote: none → Waiting for the new disk',
    ]);

    await page.goto(`/ui/audit?targetId=${changed}`);
    const update = page.locator('main tbody tr').filter({ hasText: 'job.updated' });
    await update.getByRole('link', { name: 'ui-audited-3' }).waitFor();
    expect(await update.getByRole('listitem').allTextContents()).toEqual(['cronExpression: 0 3 * * * → 0 4 * * *']);
    expect(await update.getByRole('link', { name: 'ui-audited-3' }).getAttribute('href')).toBe(`/ui/jobs/${changed}`);
    // the dates, names and actions stay on one line each, in a narrow window too (the table scrolls sideways)
    await page.setViewportSize({ width: 700, height: 720 });
    // the lines of a cell's text (an element's own box, a cut name's, is not a line)
    const lines = await page.locator('main tbody tr td.nowrap').evaluateAll((cells) =>
      cells.map((cell) => {
        const document = cell.ownerDocument;
        const texts = document.createTreeWalker(cell, 4 /* NodeFilter.SHOW_TEXT */);
        const tops = new Set<number>();
        for (let text = texts.nextNode(); text; text = texts.nextNode()) {
          const range = document.createRange();
          range.selectNodeContents(text);
          for (const rect of range.getClientRects()) tops.add(Math.round(rect.top));
        }
        return tops.size;
      }),
    );
    expect(lines.length).toBeGreaterThan(0);
    await page.setViewportSize({ width: 1280, height: 720 });
    expect(lines.filter((n) => n > 1)).toEqual([]);
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(trouble).toEqual({ errors: [], dialogs: [] });
  });
});
