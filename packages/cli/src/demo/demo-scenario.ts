import { ChainRpcClient } from '@venue/adapters';
import { createValidInputProver } from '@venue/notes';
import type { Instrument } from '@venue/protocol';
import { type Credentials, nominalCost, type TrustAnchors } from '@venue/sdk';
import { balancesMatch, type DemoReport, type DemoTraderReport, expectedHoldings } from './demo-report.ts';
import { DemoTrader, type ProvedOrder } from './demo-trader.ts';

/**
 * The scripted scenario of `venue demo` (issue 10 item 3): two traders, two markets.
 *
 *   SOL-USDC  alice bids for 2 lots above the oracle price, bob asks 1 lot below it: alice's order
 *             is partially filled, the rest of it rests, backed by her change note; when alice
 *             closes her stream (cancel on disconnect) the venue cancels the rest.
 *   ETH-USDC  bob bids, alice asks 3 lots, both at the oracle price: a full fill on both sides.
 *
 * Asks are backed by exact notes; both bids by notes half as large again as their cost, so a
 * partial fill (alice, SOL) and a full fill (bob, ETH) each hand a change note back to the wallet. Four orders, so four Groth16 proofs (about 0.7 s each). Fills arrive once their batch is
 * final on the chain (the chain's finality depth in slots), with a memo that only the owner can
 * decrypt. At the end each wallet scans the public trees and its balances are compared with what
 * the deposits and the decrypted fills say they must be.
 */

export interface DemoConnection {
  readonly url: string;
  readonly trust: TrustAnchors;
  readonly chainRpcUrl: string;
  readonly alice: Credentials;
  readonly bob: Credentials;
}

/** How long the demo waits for a step the venue drives (settlement, a cancel): generous for CI. */
export const DEMO_STEP_WAIT_MS_MAX = 60_000;
const POLL_MS = 100;
const SOL = 'SOL-USDC';
const ETH = 'ETH-USDC';

export async function runDemo(connection: DemoConnection, say: (line: string) => void): Promise<DemoReport> {
  const chain = new ChainRpcClient(connection.chainRpcUrl);
  const prover = await createValidInputProver();
  const traders: DemoTrader[] = [];
  try {
    const open = (name: string, credentials: Credentials, cancelOnDisconnect: boolean) =>
      DemoTrader.open({
        name,
        url: connection.url,
        trust: connection.trust,
        credentials,
        chain,
        prover,
        cancelOnDisconnect,
        say,
      });
    const alice = await open('alice', connection.alice, true);
    traders.push(alice);
    const bob = await open('bob', connection.bob, false);
    traders.push(bob);
    if (!alice.client.info.settlement_enabled) {
      throw new Error(
        'this venue does not settle (GET /info settlement_enabled false); run the demo against `npm start`',
      );
    }

    // Prices from the chain's oracle accounts, the reference the venue's auction bands around.
    const sol = alice.instrument(SOL);
    const eth = alice.instrument(ETH);
    const solRef = await oraclePrice(chain, sol);
    const ethRef = await oraclePrice(chain, eth);
    say(`oracle: ${SOL} ${solRef}, ${ETH} ${ethRef} (quote units per base unit x ${sol.price_scale})`);
    const solBid = {
      symbol: SOL,
      side: 'bid' as const,
      amount: 2n * sol.min_size,
      price: onTick((solRef * 102n) / 100n, sol),
    };
    const solAsk = {
      symbol: SOL,
      side: 'ask' as const,
      amount: sol.min_size,
      price: onTick((solRef * 98n) / 100n, sol),
    };
    const ethPrice = onTick(ethRef, eth);
    const ethBid = { symbol: ETH, side: 'bid' as const, amount: 3n * eth.min_size, price: ethPrice };
    const ethAsk = { symbol: ETH, side: 'ask' as const, amount: 3n * eth.min_size, price: ethPrice };

    // 1. Deposits on the chain simulator; the wallets find them in the venue's public trees.
    const slots = [
      await alice.deposit(sol.quote_mint, (nominalCost(solBid, sol) * 3n) / 2n),
      await alice.deposit(eth.base_mint, ethAsk.amount),
      await bob.deposit(sol.base_mint, solAsk.amount),
      // Worth more than the bid pays: the full fill hands the rest back as a change note.
      await bob.deposit(eth.quote_mint, (nominalCost(ethBid, eth) * 3n) / 2n),
    ];
    say('deposits landed on the chain; waiting one slot for the venue to accept their root');
    const landed = slots.reduce((a, b) => (a > b ? a : b));
    await waitFor(
      'the venue to pass the deposits slot',
      async () => (await alice.client.time()).slot > landed,
    );
    await alice.scan();
    await bob.scan();

    // 2. Proofs first (the slow part), then the four orders go out over the streams.
    say('proving the four notes (VALID_INPUT, Groth16)');
    const proved: Array<[DemoTrader, ProvedOrder]> = [
      [alice, await alice.prove(solBid)],
      [bob, await bob.prove(solAsk)],
      [bob, await bob.prove(ethBid)],
      [alice, await alice.prove(ethAsk)],
    ];
    // One at a time: a key's arrival nonces must reach the venue in the order they were signed.
    const placed: string[] = [];
    for (const [trader, order] of proved) placed.push(await trader.place(order));
    const [aliceSolBid, bobSolAsk, bobEthBid, aliceEthAsk] = placed;
    const ids = { aliceSolBid, bobSolAsk, bobEthBid, aliceEthAsk } as Record<string, string>;

    // 3. The batches clear, lock the notes, land on chain and become final; then the fills arrive.
    say('waiting for the batches to settle and become final on the chain');
    const settledAs: Array<[DemoTrader, string, string]> = [
      [alice, ids['aliceSolBid'] as string, 'partially_filled'],
      [bob, ids['bobSolAsk'] as string, 'fully_filled'],
      [bob, ids['bobEthBid'] as string, 'fully_filled'],
      [alice, ids['aliceEthAsk'] as string, 'fully_filled'],
    ];
    await waitFor('every order to settle with a fill memo', async () => {
      for (const [trader, orderId] of settledAs) {
        if (trader.state(orderId) === 'settlement_failed') {
          const event = trader.events.find((e) => e.order_id === orderId && e.kind === 'settlement_failed');
          throw new Error(
            `${trader.name}'s order ${orderId} failed to settle (${event?.reason ?? 'no reason'})`,
          );
        }
      }
      return settledAs.every(
        ([trader, orderId, state]) => trader.state(orderId) === state && trader.fillsOf(orderId).length > 0,
      );
    });

    // 4. Cancel on disconnect: alice closes her stream; the venue cancels what was left of her bid.
    await alice.disconnect();
    const rest = ids['aliceSolBid'] as string;
    await waitFor("the venue to cancel the rest of alice's bid", async () => {
      return (await alice.client.order(rest)).state === 'cancelled';
    });
    await alice.reconcile();
    say(
      `alice reads her order back over REST: ${alice.state(rest)} after filling ${alice.orders()[0]?.filled_quantity ?? 0n}`,
    );
    await bob.disconnect();

    // 5. Each wallet scans the trees: the notes the memos named are leaves now.
    for (const trader of traders) await trader.scan();
    const report: DemoReport = {
      rest_url: connection.url,
      session_id: alice.client.sessionId,
      measurement: alice.client.report.measurement,
      tokens: tokenNames([sol, eth]),
      traders: traders.map(traderReport),
    };
    const failures = traders.flatMap((t) => t.failures.map((e) => `${t.name}: ${e.message}`));
    if (failures.length > 0) throw new Error(`the demo saw errors: ${failures.join('; ')}`);
    return report;
  } finally {
    for (const trader of traders) await trader.close();
    await prover.close();
  }
}

function traderReport(trader: DemoTrader): DemoTraderReport {
  const balances = trader.balances();
  const expected = expectedHoldings(trader.deposits, trader.fills);
  return {
    name: trader.name,
    cancel_on_disconnect: trader.cancelOnDisconnect,
    deposits: trader.deposits,
    orders: trader.orders(),
    events: trader.events,
    fills: trader.fills,
    balances,
    notes: trader.notes(),
    expected,
    balances_match: balancesMatch(balances, expected),
  };
}

async function oraclePrice(chain: ChainRpcClient, instrument: Instrument): Promise<bigint> {
  const account = await chain.request('getOracle', { address: instrument.oracle_feed });
  return account.price;
}

/** The price rounded down to the market's tick (a limit off the tick is refused, spec 2.1). */
function onTick(price: bigint, instrument: Instrument): bigint {
  return (price / instrument.tick_size) * instrument.tick_size;
}

/** SOL-USDC names its base SOL and its quote USDC. */
function tokenNames(instruments: readonly Instrument[]): Record<string, string> {
  const names: Record<string, string> = {};
  for (const instrument of instruments) {
    const [base, quote] = instrument.symbol.split('-');
    if (base !== undefined) names[instrument.base_mint] = base;
    if (quote !== undefined) names[instrument.quote_mint] = quote;
  }
  return names;
}

async function waitFor(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + DEMO_STEP_WAIT_MS_MAX;
  while (!(await done())) {
    if (Date.now() > deadline)
      throw new Error(`gave up after ${DEMO_STEP_WAIT_MS_MAX} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
