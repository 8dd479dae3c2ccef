// The note wallet end to end, against a venue that settles on its chain simulator with real
// Groth16 VALID_INPUT proofs (no stub proofs anywhere), over the real HTTPS and WebSocket ports.
// Two SDK traders, each a KeyFile + NoteWallet + Trader that claims its notes from the wallet:
//   1. alice bids 10 on a 100-quote note, bob asks 4 on a 10-base note: alice is partially filled
//      (her change backs the rest of her order), bob fully filled with change;
//   2. bob asks 6 on that change note: alice's rest is fully filled;
//   3. alice places two asks of 4 at once (each claims a different note, one of them a fill's
//      received note), bob bids 4 on his received quote note: one ask fills, the other is cancelled.
// After each settlement each wallet's balances per mint equal deposits minus what the fills paid
// plus what they received, and nothing stays reserved or pending once the orders are done.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createValidInputProver, type ValidInputProver } from '@venue/notes';
import { type ProvingVenue, startProvingVenue, type TestVenue, testMarket } from '@venue/testing';
import {
  type Balance,
  connectVenue,
  KeyFile,
  type LocalOrder,
  NoteWallet,
  Trader,
  type VenueClient,
  type VenueStream,
} from '../src/index.ts';
import { credentials, trustOf, venueClock } from './helpers.ts';

const MARKET = testMarket('SOL-USDC');
const BASE = MARKET.baseMint;
const QUOTE = MARKET.quoteMint;
const PRICE = 1500n; // quote per base x 1000: 4 base cost 6 quote, 6 base cost 9
const FINALITY = 4;
const WAIT_MS_MAX = 30_000;

let venue: TestVenue;
let prover: ValidInputProver;
let dir: string;

let proving: ProvingVenue;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wallet-settlement-'));
  prover = await createValidInputProver();
  proving = await startProvingVenue({ finalityDepth: FINALITY, price: PRICE });
  venue = proving.venue;
});
after(async () => {
  await proving.stop();
  await prover.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One SDK user: key file, attested client, wallet and trader in its own folder, one stream. */
class Desk {
  private constructor(
    readonly name: string,
    readonly keyFile: KeyFile,
    readonly client: VenueClient,
    readonly wallet: NoteWallet,
    readonly trader: Trader,
    readonly stream: VenueStream,
  ) {}

  static async open(name: string): Promise<Desk> {
    const home = join(dir, name);
    const keyFile = await KeyFile.create(join(home, 'key.json'));
    const client = await connectVenue({
      url: `https://127.0.0.1:${venue.port}`,
      trust: trustOf(venue),
      clock: venueClock(venue),
    });
    await client.login(await credentials(venue, name));
    const wallet = await NoteWallet.open(keyFile, home);
    const trader = Trader.open(client, keyFile, home, { wallet, prover });
    const stream = await client.openStream({ channels: ['orders', 'fills'] });
    trader.follow(stream);
    return new Desk(name, keyFile, client, wallet, trader, stream);
  }

  /** A deposit on the chain simulator, its opening recorded in the wallet first. */
  deposit(mint: string, value: bigint): void {
    const { deposit } = this.wallet.prepareDeposit({ mint, value });
    venue.chain?.deposit(this.wallet.depositFields(deposit));
  }

  /** An order backed by a note the wallet claims and proves. */
  place(side: 'bid' | 'ask', amount: bigint): Promise<LocalOrder> {
    return this.trader.place({ symbol: MARKET.symbol, side, amount, price: PRICE });
  }

  held(): Map<string, Balance> {
    return new Map(this.wallet.balances().map((b) => [b.mint, b]));
  }

  async close(): Promise<void> {
    await this.stream.close();
    this.trader.close();
    this.wallet.close();
    await this.client.close();
  }
}

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS_MAX;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Clear, lock, land and finalize; then wait until each order reached its state and memos arrived. */
async function settle(expect: Array<[Desk, LocalOrder, string]>): Promise<void> {
  await venue.settleAll({ slotsMin: 1 + FINALITY });
  await until('the settlement events', () =>
    expect.every(([desk, order, state]) => desk.trader.orders.get(order.order_id)?.state === state),
  );
  // Each fill's memo follows its event: wait until the wallet holds the received note.
  await until('the fill memos', () =>
    expect.every(([desk, order]) =>
      desk.wallet.notes().some((n) => n.origin?.order_id === order.order_id && n.origin.role === 'received'),
    ),
  );
}

/** Spendable, reserved and pending value of both mints of the market (zero when none is held). */
function amounts(desk: Desk): Record<'base' | 'quote', Record<string, bigint>> {
  const of = (mint: string) => {
    const b = desk.held().get(mint);
    return { spendable: b?.spendable ?? 0n, reserved: b?.reserved ?? 0n, pending: b?.pending ?? 0n };
  };
  return { base: of(BASE), quote: of(QUOTE) };
}

test('two SDK wallets follow a partial then a full fill with real proofs and spend what they received', async () => {
  const alice = await Desk.open('alice');
  const bob = await Desk.open('bob');
  try {
    alice.deposit(QUOTE, 100n);
    bob.deposit(BASE, 10n);
    venue.advanceSlots(1); // the deposits' root reaches the venue
    await alice.wallet.scan(alice.client);
    await bob.wallet.scan(bob.client);

    // 1. A partial fill: alice's bid of 10 meets bob's ask of 4 (4 base for 6 quote).
    const aliceBid = await alice.place('bid', 10n);
    const bobAsk = await bob.place('ask', 4n);
    assert.equal(alice.held().get(QUOTE)?.reserved, 100n, 'the note backs the order from before its send');
    await settle([
      [alice, aliceBid, 'partially_filled'],
      [bob, bobAsk, 'fully_filled'],
    ]);
    await alice.wallet.scan(alice.client);
    await bob.wallet.scan(bob.client);
    assert.deepEqual(amounts(alice), {
      base: { spendable: 4n, reserved: 0n, pending: 0n },
      quote: { spendable: 0n, reserved: 94n, pending: 0n }, // the change backs the rest of the bid
    });
    assert.deepEqual(amounts(bob), {
      base: { spendable: 6n, reserved: 0n, pending: 0n }, // a full fill's change comes back
      quote: { spendable: 6n, reserved: 0n, pending: 0n },
    });

    // 2. A full fill of alice's rest, by an ask backed by bob's change note.
    const bobAsk2 = await bob.place('ask', 6n);
    const bobChange = bob.wallet.note(bobAsk2.note_commitment);
    assert.equal(bobChange?.origin?.role, 'change', "bob's second ask spends his first ask's change");
    await settle([
      [alice, aliceBid, 'fully_filled'],
      [bob, bobAsk2, 'fully_filled'],
    ]);
    await alice.wallet.scan(alice.client);
    await bob.wallet.scan(bob.client);
    assert.deepEqual(amounts(alice), {
      base: { spendable: 10n, reserved: 0n, pending: 0n },
      quote: { spendable: 85n, reserved: 0n, pending: 0n }, // 100 - 6 - 9
    });
    assert.deepEqual(amounts(bob), {
      base: { spendable: 0n, reserved: 0n, pending: 0n },
      quote: { spendable: 15n, reserved: 0n, pending: 0n },
    });

    // 3. Received notes back new orders. Two concurrent asks of 4 claim two different notes.
    const [askA, askB] = await Promise.all([alice.place('ask', 4n), alice.place('ask', 4n)]);
    assert.notEqual(askA.note_commitment, askB.note_commitment, 'no note backs two orders');
    for (const ask of [askA, askB]) {
      assert.equal(alice.wallet.note(ask.note_commitment)?.origin?.role, 'received');
    }
    const bobBid = await bob.place('bid', 4n);
    assert.equal(bob.wallet.note(bobBid.note_commitment)?.value, 6n, 'the smallest quote note that pays 6');
    await venue.settleAll({ slotsMin: 1 + FINALITY });
    await until(
      'one ask and the bid to fill',
      () =>
        [askA, askB].some((o) => alice.trader.orders.get(o.order_id)?.state === 'fully_filled') &&
        bob.trader.orders.get(bobBid.order_id)?.state === 'fully_filled',
    );
    const resting = [askA, askB].find((o) => alice.trader.orders.get(o.order_id)?.state === 'resting');
    assert.ok(resting, 'the other ask still rests');
    await alice.trader.cancel(resting.order_id);
    await until(
      'the memos',
      () => alice.wallet.notes().filter((n) => n.origin?.role === 'received').length === 3,
    );
    await until(
      "bob's memo",
      () => bob.wallet.notes().filter((n) => n.origin?.role === 'received').length === 3,
    );
    await alice.wallet.scan(alice.client);
    await bob.wallet.scan(bob.client);
    assert.deepEqual(amounts(alice), {
      base: { spendable: 6n, reserved: 0n, pending: 0n }, // 10 - 4
      quote: { spendable: 91n, reserved: 0n, pending: 0n }, // 85 + 6
    });
    assert.deepEqual(amounts(bob), {
      base: { spendable: 4n, reserved: 0n, pending: 0n },
      quote: { spendable: 9n, reserved: 0n, pending: 0n }, // 15 - 6
    });
    assert.deepEqual([...alice.trader.walletErrors, ...bob.trader.walletErrors], []);

    // The chain agrees: every unspent note of each wallet is a leaf where the wallet says.
    for (const desk of [alice, bob]) {
      for (const note of desk.wallet.notes().filter((n) => n.status !== 'spent')) {
        const place = venue.chain?.locate(note.commitment);
        assert.equal(place?.leaf_index, note.leaf_index, `${desk.name} ${note.commitment}`);
      }
    }
  } finally {
    await alice.close();
    await bob.close();
  }
});
