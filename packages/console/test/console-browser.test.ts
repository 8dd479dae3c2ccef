// The operator console in Debian's Chromium against one real settling venue (HTTPS, in-process
// chain): an admin signs in and sees every market; a trader's credentials are refused; a stale oracle
// shows its market paused with the reason within 2 s and trading again once the feed returns; a drain
// begins and ends from the page; an account disabled from the page loses its token; and a settled
// cross moves the settlement charts. Each test saves a screenshot under test-output/console/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadNoteHasher, type NoteHasher } from '@venue/notes';
import { generateTradingKey, signOracleUpdate } from '@venue/protocol';
import {
  depositFor,
  noteOrder,
  TEST_CORE_CONFIG,
  TestVenue,
  type Trader,
  testListing,
  testMarket,
} from '@venue/testing';
import { consolePage, launchChromium, screenshot, signIn } from '@venue/testing/browser';
import type { Browser, Page } from 'playwright-core';

const SOL = testListing(testMarket('SOL-USDC'));
const ETH = testListing(testMarket('ETH-USDC'));
const PRICE = 1500n;
/** The spec's bound for a pause to reach the operator's screen (issue 23). */
const SHOWN_WITHIN_MS = 2_000;

let venue: TestVenue;
let hasher: NoteHasher;
let browser: Browser;
let page: Page;
let admin: { api_key: string; api_secret: string; passphrase: string };
/** What the page reported as broken: script errors and CSP refusals land in the browser console. */
const pageProblems: string[] = [];
const publishers = new Map([
  [SOL.config.oracleFeed, generateTradingKey()],
  [ETH.config.oracleFeed, generateTradingKey()],
]);
const sequences = new Map<string, bigint>();

/** A signed price from the feed's publisher, published now. */
function publish(feed: string, price: bigint): void {
  const sequence = (sequences.get(feed) ?? 0n) + 1n;
  sequences.set(feed, sequence);
  const publisher = publishers.get(feed);
  assert.ok(publisher);
  const update = signOracleUpdate(
    { feed, price, confidence: 1n, publish_slot: venue.clock.slot(), sequence },
    publisher,
  );
  assert.equal(venue.monitor?.receive(update, venue.clock.slot()), 'accepted');
}

function row(symbol: string): string {
  return `[data-testid="market-${symbol}"]`;
}

before(async () => {
  hasher = await loadNoteHasher();
  venue = await TestVenue.start({
    settlement: true,
    core: { ...TEST_CORE_CONFIG, noteCommitment: hasher.noteCommitment },
    oraclePublishers: new Map([...publishers].map(([feed, key]) => [feed, key.publicKey])),
  });
  publish(SOL.config.oracleFeed, PRICE);
  publish(ETH.config.oracleFeed, 3_000_000n);
  admin = await venue.server.provision('admin', 'console operator');
  browser = await launchChromium();
  page = await consolePage(browser, venue.port);
  page.on('pageerror', (error) => pageProblems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageProblems.push(message.text());
  });
});
after(async () => {
  await browser?.close();
  await venue?.stop();
});

test('an admin signs in and sees every market trading, the venue, the drain and the accounts', async () => {
  const response = await page.goto('/console/');
  assert.equal(response?.status(), 200);
  assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
  await signIn(page, admin);
  await page.waitForSelector('[data-testid="dashboard"]');
  for (const symbol of ['SOL-USDC', 'ETH-USDC']) {
    assert.equal(await page.getAttribute(row(symbol), 'data-state'), 'trading');
    assert.equal(
      await page.getAttribute(`${row(symbol)} [data-testid="market-oracle"]`, 'data-verdict'),
      'fresh',
    );
  }
  assert.equal(await page.textContent('[data-testid="venue-status"]'), 'trading');
  assert.match((await page.textContent('[data-testid="venue-attestation"]')) ?? '', /measurement/);
  assert.match((await page.textContent('[data-testid="drain-state"]')) ?? '', /^open/);
  assert.ok(await page.isVisible(`[data-testid="account-${admin.api_key}"]`));
  await screenshot(page, 'admin-signed-in');
  assert.deepEqual(pageProblems, [], 'the page runs under its CSP without an error');
});

test("a trader's credentials are refused and its token is given back", async () => {
  const trader = await venue.trader('console-trader');
  const other = await consolePage(browser, venue.port);
  try {
    await other.goto('/console/');
    await signIn(other, {
      api_key: trader.apiKey,
      api_secret: trader.apiSecret,
      passphrase: trader.passphrase,
    });
    const error = await other.waitForSelector('[data-testid="login-error"]');
    assert.match((await error.textContent()) ?? '', /not an admin account/);
    assert.equal(await other.isVisible('[data-testid="dashboard"]'), false);
    await screenshot(other, 'trader-refused');
  } finally {
    await other.context().close();
  }
  const wrong = await consolePage(browser, venue.port);
  try {
    await wrong.goto('/console/');
    await signIn(wrong, { ...admin, api_secret: `${admin.api_secret.slice(0, -1)}x` });
    const error = await wrong.waitForSelector('[data-testid="login-error"]');
    assert.match((await error.textContent()) ?? '', /Sign-in refused/);
  } finally {
    await wrong.context().close();
  }
});

test('a stale oracle shows its market paused with the reason within 2 s; the returning feed reopens it', async () => {
  venue.advanceSlots(Number(SOL.oracleMaxAgeSlots) + 1);
  publish(ETH.config.oracleFeed, 3_000_000n); // ETH's feed keeps publishing; SOL's went quiet
  const paused = `${row('SOL-USDC')}[data-state="paused"]`;
  await page.waitForSelector(paused, { timeout: SHOWN_WITHIN_MS });
  assert.equal(await page.textContent(`${row('SOL-USDC')} [data-testid="market-reason"]`), 'oracle_stale');
  assert.equal(
    await page.getAttribute(`${row('SOL-USDC')} [data-testid="market-oracle"]`, 'data-verdict'),
    'stale',
  );
  assert.match(
    (await page.textContent(`${row('SOL-USDC')} [data-testid="market-oracle"]`)) ?? '',
    /^stale \((2[6-9]|[3-9]\d) of 25 slots\)$/,
    'with the age of the last price',
  );
  assert.equal(await page.getAttribute(row('ETH-USDC'), 'data-state'), 'trading', 'only its own market');
  assert.equal(await page.textContent('[data-testid="venue-status"]'), 'degraded');
  await screenshot(page, 'oracle-stale-paused');

  publish(SOL.config.oracleFeed, PRICE);
  await page.waitForSelector(`${row('SOL-USDC')}[data-state="trading"]`, { timeout: SHOWN_WITHIN_MS });
  assert.equal(await page.textContent(`${row('SOL-USDC')} [data-testid="market-reason"]`), '');
  await screenshot(page, 'oracle-back-trading');
});

test('a drain begins and ends from the page, each after a confirmation', async () => {
  await page.click('[data-testid="drain-begin"]');
  assert.equal((await venue.call('/admin/drain', { token: venue.adminToken })).text.includes('"open"'), true);
  await page.click('[data-testid="drain-begin-confirm"]');
  await page.waitForSelector('[data-testid="drain-end"]');
  const draining = JSON.parse((await venue.call('/admin/drain', { token: venue.adminToken })).text);
  assert.equal(draining.trading_closed, true);
  assert.match((await page.textContent('[data-testid="venue-reasons"]')) ?? '', /draining/);
  await page.waitForSelector(`${row('SOL-USDC')}[data-state="paused"]`);
  await screenshot(page, 'drain-begun');

  await page.click('[data-testid="drain-end"]');
  await page.click('[data-testid="drain-end-confirm"]');
  await page.waitForSelector('[data-testid="drain-begin"]');
  const reopened = JSON.parse((await venue.call('/admin/drain', { token: venue.adminToken })).text);
  assert.equal(reopened.state, 'open');
  await page.waitForSelector(`${row('SOL-USDC')}[data-state="trading"]`);
  await screenshot(page, 'drain-ended');
});

test('an account disabled from the page loses its token at once; enable and revoke-tokens work too', async () => {
  const trader = await venue.trader('to-disable');
  assert.equal((await venue.call('/account', { token: trader.token })).status, 200);
  const account = `[data-testid="account-${trader.apiKey}"]`;
  await page.waitForSelector(account);
  await page.click(`${account} [data-testid="account-disable"]`);
  await page.click(`${account} [data-testid="account-disable-confirm"]`);
  await page.waitForSelector(`${account}[data-status="suspended"]`);
  const refused = await venue.call('/account', { token: trader.token });
  assert.equal(refused.status, 403, refused.text);
  assert.equal(JSON.parse(refused.text).code, 1106, 'ACCOUNT_DISABLED');
  await screenshot(page, 'account-disabled');

  await page.click(`${account} [data-testid="account-enable"]`);
  await page.click(`${account} [data-testid="account-enable-confirm"]`);
  await page.waitForSelector(`${account}[data-status="active"]`);
  assert.equal((await venue.call('/account', { token: trader.token })).status, 200);

  // Revoking its tokens leaves the account active but its token dead.
  await page.click(`${account} [data-testid="account-revoke"]`);
  await page.click(`${account} [data-testid="account-revoke-confirm"]`);
  await page.waitForSelector(`${account} [data-testid="account-revoke"]`);
  const revoked = await venue.call('/account', { token: trader.token });
  assert.equal(revoked.status, 401, revoked.text);
  assert.equal(JSON.parse(revoked.text).code, 1104, 'TOKEN_REVOKED');
});

test('a settled cross moves the settlement charts', async () => {
  const latency = '[data-testid="chart-settlement-latency"]';
  assert.match((await page.getAttribute(latency, 'data-latest')) ?? '', /p50=none/, 'nothing settled yet');
  const alice: Trader = await venue.trader('alice');
  const bob: Trader = await venue.trader('bob');
  const chain = venue.chain;
  assert.ok(chain);
  const market = SOL.config;
  const askNote = depositFor(chain, hasher, market, alice, 'ask', 20n);
  const bidNote = depositFor(chain, hasher, market, bob, 'bid', (20n * PRICE) / market.priceScale);
  venue.advanceSlots(1);
  publish(SOL.config.oracleFeed, PRICE);
  const context = { chain, market, sessionId: venue.identity.sessionId, slot: venue.clock.slot() };
  const ask = noteOrder(context, alice, askNote, { side: 'ask', amount: 20n, price: PRICE, id: 1 });
  const bid = noteOrder(context, bob, bidNote, { side: 'bid', amount: 20n, price: PRICE, id: 2 });
  assert.equal((await venue.place(alice, ask)).status, 200);
  assert.equal((await venue.place(bob, bid)).status, 200);
  const forged = await venue.place(bob, { ...bid, order_id: 'ff'.repeat(16) });
  assert.equal(forged.status, 403, 'a body that is not what was signed is refused (BAD_SIGNATURE)');
  await venue.settleAll({ slotsMin: 8 });

  // The page's next polls see the batch final: the latency chart gets a value, the row counts it.
  await page.waitForSelector(`${latency}:not([data-latest*="p50=none"])`);
  assert.match((await page.getAttribute(latency, 'data-latest')) ?? '', /p50=\d+ p99=\d+/);
  assert.equal(
    await page.textContent(`${row('SOL-USDC')} [data-testid="market-batches"]`),
    '1 / 0',
    'one batch settled, none failed',
  );
  assert.equal(await page.textContent(`${row('SOL-USDC')} [data-testid="market-batch-seq"]`), '1');
  const batches = (await page.getAttribute('[data-testid="chart-settlement-batches"]', 'data-peak')) ?? '';
  assert.match(batches, /settled=[1-9]/, `the settled batch showed in the batch rate: ${batches}`);
  const intake = (await page.getAttribute('[data-testid="chart-intake"]', 'data-peak')) ?? '';
  assert.match(intake, /accepted=[1-9]/, `the two orders showed in the intake rate: ${intake}`);
  assert.match(intake, /refused=[1-9]/, `the refused one too: ${intake}`);
  assert.match((await page.textContent('[data-testid="refusals"]')) ?? '', /BAD_SIGNATURE\s*1/);
  await screenshot(page, 'settled-cross-charts');
});
