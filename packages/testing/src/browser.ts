import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core, for the operator console's browser tests. The
 * machine set-up (scripts/ensure-machine.mjs, run by `npm test`) installs it; playwright never
 * downloads a browser of its own. The flags keep a headless Chromium off the network: without them
 * it keeps trying Google's hosts, which a closed machine refuses.
 */
export const CHROMIUM_PATH = '/usr/bin/chromium';

const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: run \`node scripts/ensure-machine.mjs\` (npm test does)`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
}

/**
 * A page in a fresh context that trusts the venue's boot certificate (self-signed, one per boot,
 * spec 1 item 9). The test checks the pinned certificate elsewhere; here the page is the subject.
 */
export async function consolePage(browser: Browser, port: number): Promise<Page> {
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    baseURL: `https://127.0.0.1:${port}`,
    viewport: { width: 1400, height: 1100 },
  });
  return context.newPage();
}

const SCREENSHOTS = resolve(import.meta.dirname, '..', '..', '..', 'test-output', 'console');

/** Saves what the test checked, for a person to look at (test-output/ is git-ignored). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Fills the console's sign-in form and submits it. */
export async function signIn(
  page: Page,
  credentials: { api_key: string; api_secret: string; passphrase: string },
): Promise<void> {
  await page.fill('input[name="api_key"]', credentials.api_key);
  await page.fill('input[name="api_secret"]', credentials.api_secret);
  await page.fill('input[name="passphrase"]', credentials.passphrase);
  await page.click('[data-testid="login-submit"]');
}
