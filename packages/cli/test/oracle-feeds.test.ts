// The served venue's oracle intake (serve/oracle-feeds.ts) against a real HTTP feed: the publisher
// answers with its newest signed update until it signs the next, so most polls fetch an update the
// venue already took. That must keep the market open (decisions D147); an altered update under the
// same sequence must still close it, and the next new update reopens it.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { OracleMonitor } from '@venue/adapters';
import { generateTradingKey, type OracleUpdate, signOracleUpdate } from '@venue/protocol';
import { TestVenue, testListing, testMarket } from '@venue/testing';
import { type OracleFeeds, pollOracleFeeds } from '../src/serve/oracle-feeds.ts';

const SOL = testListing(testMarket('SOL-USDC'));
const FEED = SOL.config.oracleFeed;
const publisher = generateTradingKey();
const POLL_MS = 20;
/** How long a wait for the poller may take before the test fails (a loaded host is slow). */
const WAIT_MS = 20_000;

let venue: TestVenue;
let monitor: OracleMonitor;
let server: Server;
let url: string;
/** What the feed answers now, and how many times it was asked. */
let current: OracleUpdate;
let fetches = 0;
const problems: string[] = [];

function signed(price: bigint, sequence: bigint): OracleUpdate {
  return signOracleUpdate(
    { feed: FEED, price, confidence: 1n, publish_slot: venue.clock.slot(), sequence },
    publisher,
  );
}

function gate(): string | null {
  return venue.server.engine.core.marketGate(SOL.config.marketId).pausedReason;
}

/** Waits until the feed has answered `more` more polls than now (each poll asks it once). */
async function polls(more: number): Promise<void> {
  const until = fetches + more;
  const deadline = Date.now() + WAIT_MS;
  while (fetches < until) {
    assert.ok(Date.now() < deadline, `the poller fetched ${fetches} times, waiting for ${until}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  // The poll that made the last fetch hands the update over in the same turn; one more wait lets
  // it finish before the gate is read.
  await new Promise((resolve) => setTimeout(resolve, POLL_MS));
}

before(async () => {
  // The assembly builds the monitor, as serve's does; the poller under test feeds it.
  venue = await TestVenue.start({ oraclePublishers: new Map([[FEED, publisher.publicKey]]) });
  assert.ok(venue.monitor !== undefined, 'the venue gates its markets on the oracle');
  monitor = venue.monitor;
  current = signed(150_000n, 1n);
  server = createServer((_request, response) => {
    fetches += 1;
    const body = Object.fromEntries(
      Object.entries(current).map(([key, value]) => [
        key,
        typeof value === 'bigint' ? value.toString() : value,
      ]),
    );
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feeds/${FEED}`;
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await venue.stop();
});

test('an update fetched again keeps its market open; an altered one closes it; the next reopens it', async () => {
  const feeds: OracleFeeds = pollOracleFeeds([{ feed: FEED, url }], monitor, venue.clock, {
    pollMs: POLL_MS,
    onProblem: (_feed, problem) => problems.push(problem),
  });
  try {
    // The same update, fetched many times over: taken once, and the market stays open.
    await polls(8);
    assert.equal(gate(), null, 'the market stays open while the feed answers the update it took');
    assert.deepEqual(problems, [], 'an update fetched again is no problem');

    // The same sequence with another price: a publisher that signs two observations under one
    // sequence is not to be trusted until it signs a new one.
    current = signed(150_100n, 1n);
    await polls(3);
    assert.equal(gate(), 'oracle_invalid', 'an altered update under the same sequence closes the market');
    assert.deepEqual(problems, ['update refused: replayed']);

    current = signed(150_200n, 2n);
    await polls(3);
    assert.equal(gate(), null, 'the next new update reopens the market');
    assert.deepEqual(problems, ['update refused: replayed', 'updates accepted again']);
    assert.equal(monitor.latestUpdate(FEED)?.sequence, 2n);
  } finally {
    feeds.stop();
  }
});
