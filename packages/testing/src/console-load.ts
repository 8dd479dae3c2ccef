import { createHash } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { consolePage, signIn } from './browser.ts';
import { orderBody, testMarket } from './core-fixtures.ts';
import { TestVenue } from './venue-fixture.ts';

/**
 * The console's load scenario (issue 23): a venue with 10 markets and 10,000 resting orders, and the
 * time an admin waits for the console. Shared by the browser test, which prints the figures, and
 * `npm run bench -- console-load`, which sets them beside a baseline.
 */
export const LOAD_SYMBOLS = ['SOL', 'ETH', 'BTC', 'AVAX', 'DOT', 'ATOM', 'NEAR', 'APT', 'SUI', 'ARB'].map(
  (base) => `${base}-USDC`,
);
export const LOAD_RESTING_ORDERS = 10_000;

export interface LoadedVenue {
  readonly venue: TestVenue;
  readonly admin: { api_key: string; api_secret: string; passphrase: string };
}

/**
 * The orders go straight to the sequencer (the journal path every REST order ends on), bids below
 * any ask so none crosses: the subject is the console under a full book, not intake speed. One
 * account per market keeps each under the per-account open-order limit.
 */
export async function startLoadedVenue(): Promise<LoadedVenue> {
  const venue = await TestVenue.start({ markets: LOAD_SYMBOLS.map((symbol) => testMarket(symbol)) });
  const perMarket = LOAD_RESTING_ORDERS / LOAD_SYMBOLS.length;
  let id = 0;
  for (const symbol of LOAD_SYMBOLS) {
    const account = await venue.server.provision('trader', `load ${symbol}`);
    for (let i = 0; i < perMarket; i += 1) {
      id += 1;
      const order = {
        ...orderBody({
          id,
          symbol,
          side: 'bid',
          price: 1000n + BigInt(i % 50) * 10n,
          key: `${symbol}-${i % 10}`,
          expiry: venue.clock.slot() + 500n,
        }),
        session_id: venue.identity.sessionId,
      };
      venue.server.engine.record({
        type: 'place',
        order,
        bodyDigest: createHash('sha256').update(order.order_id).digest('hex'),
        accountId: account.account_id,
        connectionId: null,
      });
    }
  }
  const resting = venue.server.engine.core.restingNoteCommitments().length;
  if (resting !== LOAD_RESTING_ORDERS) throw new Error(`${resting} orders rest, not ${LOAD_RESTING_ORDERS}`);
  const admin = await venue.server.provision('admin', 'load operator');
  return { venue, admin };
}

export interface ConsoleLoadTimes {
  /** Navigation start to the sign-in form rendered (HTML, script and styles fetched and run). */
  readonly pageLoadMs: number;
  /** Submitting the admin's credentials to the dashboard rendered with every market (the page's marks). */
  readonly firstRenderMs: number;
  /** Navigation start to the end of loading a trivial JSON route of the same server: the baseline. */
  readonly trivialPageMs: number;
}

/** The page's own timing marks (packages/console/src: LoginForm and Dashboard), by name. */
async function marks(page: Page): Promise<Map<string, number>> {
  const entries = (await page.evaluate(
    "performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])",
  )) as [string, number][];
  return new Map(entries);
}

function mark(found: Map<string, number>, name: string): number {
  const at = found.get(name);
  if (at === undefined) throw new Error(`the console set no ${name} mark`);
  return at;
}

/** One cold load of the console in a fresh browser context (no cache, no session). */
export async function measureConsoleLoad(browser: Browser, loaded: LoadedVenue): Promise<ConsoleLoadTimes> {
  const page = await consolePage(browser, loaded.venue.port);
  try {
    await page.goto('/health');
    const trivialPageMs = (await page.evaluate(
      "performance.getEntriesByType('navigation')[0].duration",
    )) as number;
    await page.goto('/console/');
    await page.waitForSelector('[data-testid="login"]');
    await signIn(page, loaded.admin);
    for (const symbol of LOAD_SYMBOLS) await page.waitForSelector(`[data-testid="market-${symbol}"]`);
    const found = await marks(page);
    return {
      pageLoadMs: mark(found, 'console-login-render'),
      firstRenderMs: mark(found, 'console-first-render') - mark(found, 'console-sign-in'),
      trivialPageMs,
    };
  } finally {
    await page.context().close();
  }
}
