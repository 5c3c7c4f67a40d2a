import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { createTestApp, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { accessibilityProblems, launchBrowser, openTab, signIn } from './browser.js';

const NOT_ACCEPTED = 'That token was not accepted: check it and try again.';
const SESSION_ENDED = 'Your session has ended: Orbit no longer accepts its token (revoked?). Sign in again.';

/**
 * What the sign-in page says, and when: a wrong token is one plain refusal; the end of a session
 * is said only when there was one, a token this tab had signed in with and the API now refuses.
 */
describe('signing in to the dashboard', () => {
  let t: TestApp;
  let browser: Browser;
  let baseUrl: string;
  const api = () => request(t.app.getHttpServer());

  /** Every message on the sign-in page (alerts and status lines), once the form is idle. */
  async function messages(page: Page): Promise<string[]> {
    await page.getByRole('button', { name: 'Sign in' }).and(page.locator(':enabled')).waitFor();
    const said = await page.locator('main [role=alert], main [role=status]').allTextContents();
    return said.filter((text) => text.trim() !== '');
  }

  async function submit(page: Page, token: string): Promise<void> {
    await page.getByLabel('Token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function issue(name: string): Promise<{ id: string; token: string }> {
    return (await api().post('/tokens').send({ name, role: 'operator' }).expect(201)).body as {
      id: string;
      token: string;
    };
  }

  async function withTab(run: (page: Page) => Promise<void>): Promise<void> {
    const tab = await openTab(browser, baseUrl);
    try {
      await run(tab.page);
      expect(tab.trouble).toEqual({ errors: [], dialogs: [] });
    } finally {
      await tab.context.close();
    }
  }

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a wrong token gets one message, which says the token was not accepted', async () => {
    await withTab(async (page) => {
      await page.goto('/ui/');
      await submit(page, 'orbit_not-a-real-token');
      await page.getByRole('alert').waitFor();
      expect(await messages(page)).toEqual([NOT_ACCEPTED]);
      expect(await page.getByLabel('Token').getAttribute('aria-invalid')).toBe('true');
      expect(await accessibilityProblems(page)).toEqual([]);
      // a second wrong token: still the one message
      await submit(page, 'orbit_another-wrong-one');
      expect(await messages(page)).toEqual([NOT_ACCEPTED]);
    });
  });

  it('a revoked token ends the session it signed in: that is said once, and a wrong token then replaces it', async () => {
    const { id, token } = await issue('sign-in-revoked');
    await withTab(async (page) => {
      await signIn(page, token);
      await api().delete(`/tokens/${id}`).expect(204);
      // the next read is refused: a click on Jobs makes one, unless the page's own rereads came first
      const form = page.getByLabel('Token');
      await page
        .getByRole('link', { name: 'Jobs' })
        .click({ timeout: 2_000 })
        .catch(async (error: unknown) => {
          if (!(await form.isVisible())) throw error;
        });
      await form.waitFor();
      expect(await messages(page)).toEqual([SESSION_ENDED]);
      expect(await page.evaluate("sessionStorage.getItem('orbit.token')")).toBeNull();

      await submit(page, 'orbit_not-a-real-token');
      await page.getByRole('alert').waitFor();
      expect(await messages(page)).toEqual([NOT_ACCEPTED]);
    });
  });

  it('a tab reloaded after its token was revoked says the session ended, once', async () => {
    const { id, token } = await issue('sign-in-reloaded');
    await withTab(async (page) => {
      await signIn(page, token);
      await api().delete(`/tokens/${id}`).expect(204);
      // as the tab holds it until a read is refused; set before the page's scripts run, since a
      // refused read of the old page (its event stream) may still remove it before the reload
      await page.addInitScript(`sessionStorage.setItem('orbit.token', ${JSON.stringify(token)})`);
      await page.reload();
      await page.getByLabel('Token').waitFor();
      await waitFor(async () => ((await messages(page)).length > 0 ? true : undefined), 'a message');
      expect(await messages(page)).toEqual([SESSION_ENDED]);
    });
  });
});
