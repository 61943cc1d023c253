import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (installed by .ci/run); CHROMIUM_PATH overrides it. */
export const CHROMIUM =
  process.env.CHROMIUM_PATH ||
  (fs.existsSync('/usr/lib/chromium/chromium') ? '/usr/lib/chromium/chromium' : '/usr/bin/chromium');

/** Where UI tests keep a screenshot of each main screen (git-ignored) for a reviewer. */
export const SCREENSHOTS = path.resolve(import.meta.dirname, '..', '.artifacts', 'screens');

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A fresh browser context (own cookies), signed in through the real sign-in form. */
export async function signedIn(
  browser: Browser,
  baseUrl: string,
  email: string,
  password: string,
  opts: { javaScriptEnabled?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: { width: 1280, height: 800 },
    javaScriptEnabled: opts.javaScriptEnabled ?? true,
  });
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  return { context, page };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

// A ticket page, as the tests find their way on it.
/** The ids of a ticket page's history entries (`#history > li`), top to bottom. */
export const historyIds = (p: Page) => p.locator('#history > li').evaluateAll((lis) => lis.map((li) => li.id));
/** The history entries of a ticket page that contain `text`. */
export const historyEntry = (p: Page, text: string) => p.locator('#history > li', { hasText: text });
/** A ticket page's history, found as a reader of the page finds it (the list named History). */
export const historyList = (p: Page) => p.getByRole('list', { name: 'History' });
/** The reply box of a ticket page (the textbox named Message). */
export const messageBox = (p: Page) => p.getByRole('textbox', { name: 'Message' });

/** Waits until the page's live updates are connected (`[data-live-root]` says open). */
export const liveOpen = (p: Page, timeout = 20_000) =>
  p.waitForSelector('[data-live-root][data-live-state="open"]', { timeout });

/** Waits until htmx has no request, swap or settle under way on the page. */
export const settled = (p: Page, timeout = 20_000) =>
  p.waitForFunction(
    () => !(globalThis as any).document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling'),
    undefined,
    { timeout, polling: 50 },
  );
