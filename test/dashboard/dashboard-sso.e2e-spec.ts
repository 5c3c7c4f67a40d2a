import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { issuerEnv, startTestIssuer, TestIssuer } from '../support/oidc-issuer.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { freePort } from '../support/wait.js';
import { accessibilityProblems, launchBrowser, openTab } from './browser.js';

/** From the dashboard's sign-in page, through the issuer's, back to the dashboard. */
async function signInAs(page: Page, login: string): Promise<void> {
  await page.goto('/ui/');
  await page.getByRole('link', { name: 'Sign in with Test SSO' }).click();
  await page.getByLabel('Login').fill(login);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** People sign in to the dashboard through the OIDC issuer, in Chromium, and sign out again. */
describe('signing in to the dashboard through the issuer', () => {
  let issuer: TestIssuer;
  let t: TestApp;
  let browser: Browser;
  let orbit: string;

  beforeAll(async () => {
    const port = await freePort();
    orbit = `http://127.0.0.1:${port}`;
    issuer = await startTestIssuer(
      [orbit],
      [
        { login: 'ada', name: 'Ada Lovelace', email: 'ada@example.com', groups: ['orbit-admins'] },
        { login: 'bob', name: 'Bob Payne', email: 'bob@example.com', groups: ['payments'] },
      ],
    );
    t = await createTestApp({
      asAdmin: false,
      env: issuerEnv(issuer, orbit),
    });
    await t.app.listen(port, '127.0.0.1');
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await issuer?.close();
  });

  it('signs in with the issuer, shows the person, keeps the session across a reload, and signs out at both ends', async () => {
    const tab = await openTab(browser, orbit);
    const page = tab.page;
    try {
      await page.goto('/ui/');
      const link = page.getByRole('link', { name: 'Sign in with Test SSO' });
      await link.waitFor();
      expect(await page.getByLabel('Token').count()).toBe(1); // a token still works
      expect(await accessibilityProblems(page)).toEqual([]);

      await link.click();
      await page.getByLabel('Login').fill('ada');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('link', { name: 'Overview' }).waitFor();
      expect(page.url()).toBe(`${orbit}/ui/`);
      await page.getByText('Ada Lovelace (admin)').waitFor();

      await page.reload();
      await page.getByText('Ada Lovelace (admin)').waitFor();

      const cookies = await tab.context.cookies(orbit);
      expect(cookies.find((c) => c.name === 'orbit_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

      await page.getByRole('button', { name: 'Sign out' }).click();
      // the issuer asks to confirm its own sign-out: Orbit's session is gone already
      await page.waitForURL((url) => url.href.startsWith(`${issuer.url}/session/end`));
      const me = await request(t.app.getHttpServer())
        .get('/auth/me')
        .set('Cookie', `orbit_session=${cookies.find((c) => c.name === 'orbit_session')!.value}`);
      expect(me.status).toBe(401);
      expect(tab.trouble).toEqual({ errors: [], dialogs: [] });
    } finally {
      await tab.context.close();
    }
  });

  it('a person with no role yet is told so, on every page', async () => {
    const tab = await openTab(browser, orbit);
    const page = tab.page;
    try {
      await signInAs(page, 'bob');
      await page.getByText('Bob Payne (no role)').waitFor();
      const granted = await request(t.app.getHttpServer())
        .put('/teams/default/grants')
        .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
        .send({ grants: [{ kind: 'group', subject: 'payments', role: 'viewer' }] });
      expect(granted.status).toBe(200);
      await page.reload();
      await page.getByText('Bob Payne (viewer)').waitFor();

      // a person issues their own token, with their role at most, for a while
      await page.getByRole('link', { name: 'Tokens' }).click();
      await page.getByLabel('Name').fill('bob-script');
      await page.getByLabel('Expires in').selectOption('7');
      await page.getByRole('button', { name: 'Issue token' }).click();
      const secret = (await page.locator('.secret code').textContent())!;
      const me = await request(t.app.getHttpServer()).get('/auth/me').set('Authorization', `Bearer ${secret}`);
      expect(me.body).toMatchObject({ kind: 'user', name: 'Bob Payne', role: 'viewer' });
      await page.getByRole('cell', { name: 'bob-script', exact: true }).waitFor();
      expect(await page.getByRole('row').count()).toBe(2); // the header and Bob's one token
    } finally {
      await tab.context.close();
    }
  });

  it('an Orbit admin creates a team and edits its grants on the Teams page; the person granted sees their role', async () => {
    const tab = await openTab(browser, orbit);
    const page = tab.page;
    try {
      await signInAs(page, 'ada');
      await page.getByRole('link', { name: 'Teams' }).click();
      await page.getByLabel('New team').fill('payments');
      await page.getByRole('button', { name: 'Create team' }).click();
      await page.getByRole('heading', { name: 'Grants of payments' }).waitFor();
      await page.getByText('No grants yet').waitFor();
      await page.getByRole('button', { name: 'Add a grant' }).click();
      await page.getByLabel('Group').fill('payments');
      await page.getByLabel('Role', { exact: true }).selectOption('operator');
      await page.getByRole('button', { name: 'Add a grant' }).click();
      await page.locator('#grant-kind-1').selectOption('user');
      await page.getByLabel('Email or user name').fill('Bob@Example.com');
      await page.getByRole('button', { name: 'Save grants' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved: 2 grants.' }).waitFor();
      expect(await accessibilityProblems(page)).toEqual([]);

      const grants = await request(t.app.getHttpServer())
        .get('/teams/payments/grants')
        .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`);
      expect(grants.body.grants).toEqual([
        { kind: 'group', subject: 'payments', role: 'operator' },
        { kind: 'user', subject: 'bob@example.com', role: 'viewer' },
      ]);
      // a mistake is named, and nothing is saved
      await page.getByRole('button', { name: 'Remove grant 2' }).click();
      await page.getByRole('button', { name: 'Add a grant' }).click();
      await page.getByRole('button', { name: 'Add a grant' }).click();
      await page.locator('#grant-subject-1').fill('ops');
      await page.locator('#grant-subject-2').fill('ops');
      await page.getByRole('button', { name: 'Save grants' }).click();
      await page.getByRole('alert').filter({ hasText: "grants[2] grants group 'ops' a second time" }).waitFor();

      // the people who signed in, and a removal that ends their sessions
      const people = page.getByRole('region', { name: 'People' });
      await people.getByRole('cell', { name: 'Bob Payne', exact: true }).waitFor();
      await people.getByRole('button', { name: 'Remove Bob Payne' }).click();
      await people.getByRole('cell', { name: 'removed', exact: true }).waitFor();
      expect(tab.trouble.errors.filter((e) => !e.includes('400'))).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });
});
