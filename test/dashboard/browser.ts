import AxeBuilder from '@axe-core/playwright';
import chromium from '@sparticuz/chromium';
import {
  chromium as playwright,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core';

/**
 * Flags of @sparticuz/chromium's serverless defaults left out: two would weaken what the tests
 * check (the same-origin policy, mixed content), and in one process closing a second context
 * (a viewer's tab) takes the whole browser down.
 */
const LEFT_OUT = new Set(['--disable-web-security', '--allow-running-insecure-content', '--single-process']);

/**
 * The Chromium that ships inside the npm package (no download step), headless. A browser that
 * dies as it starts (a crash of its own, before any page; seen on a loaded machine) is started
 * once more: what the tests check begins with the first page.
 */
export async function launchBrowser(): Promise<Browser> {
  const launch = async () =>
    playwright.launch({
      executablePath: await chromium.executablePath(),
      args: chromium.args.filter((arg) => !LEFT_OUT.has(arg)),
      headless: true,
    });
  try {
    return await launch();
  } catch (error) {
    if (!/has been closed|exitCode=|signal=/.test(String(error))) throw error;
    return launch();
  }
}

/** What went wrong in the page without failing a step: errors, CSP refusals, dialogs (alert()). */
export interface PageTrouble {
  errors: string[];
  dialogs: string[];
}

/**
 * A tab of its own (its own sessionStorage, so its own sign-in), watched for trouble. `locale` is
 * the browser's language (navigator.language, Accept-Language), British English unless given;
 * `options` change the rest (the window's size, the colour scheme, the time zone).
 */
export async function openTab(
  browser: Browser,
  baseUrl: string,
  locale = 'en-GB',
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page; trouble: PageTrouble }> {
  const context = await browser.newContext({ baseURL: baseUrl, timezoneId: 'UTC', locale, ...options });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const trouble: PageTrouble = { errors: [], dialogs: [] };
  page.on('pageerror', (error) => trouble.errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // a refused request (a 400 the test provoked) is logged by the browser, not by a script
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      trouble.errors.push(`console: ${message.text()}`);
    }
  });
  page.on('dialog', (dialog) => {
    trouble.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { context, page, trouble };
}

/** axe-core's serious and critical findings on the page as it is now, as readable lines. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** A folded section of a form (native details) by the title its summary starts with. */
export function formSection(page: Page, title: string) {
  const summary = page.locator('summary').filter({ hasText: new RegExp(`^${title}`) });
  return {
    /** As a reader does: a click on its summary. */
    toggle: () => summary.click(),
    isOpen: async () => (await summary.locator('..').getAttribute('open')) !== null,
  };
}

/** Signs in on the dashboard with a pasted token, as a user does, and waits for the main navigation. */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.goto('/ui/');
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Overview' }).waitFor();
}
