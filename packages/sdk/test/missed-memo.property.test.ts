// A wallet that misses fill memos still ends up with every note the chain holds for it. Random
// orders (either side, random tick, scale, limit and surplus) are filled by random matches at
// random clearing prices on the order's side of its limit, each against one to four counterparties
// whose quotes the core floors one by one (core batch/run-batch.ts); the settlement appends the
// outputs the venue's pipeline makes (planLeg: blindings from the spent note's inner hash) among
// other owners' leaves. Each match reaches the wallet one way: event and memo, the event alone, the
// venue's record alone (GET /orders/{id} after a gap), the memo only after a scan already searched,
// or not at all before the order's record says it was cancelled or expired. After a final scan the
// wallet's balances equal what the chain holds for it, nothing is left unresolved, and every note
// it counts is a leaf with the commitment it claims. A second property checks the candidate values
// against every way the core can split a match between counterparties.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  assetIdOfMint,
  deriveChangeNote,
  deriveFillNote,
  loadNoteHasher,
  type NoteHasher,
  sealFillMemo,
} from '@venue/notes';
import type { FillMemoPlaintext, FillMessage } from '@venue/protocol';
import { testMarket } from '@venue/testing';
import fc from 'fast-check';
import { type FillFacts, KeyFile, NoteWallet, type WalletNote } from '../src/index.ts';
import { candidateValues, quoteShortfallMax } from '../src/wallet/inferred-outputs.ts';
import { TreeWorld } from './wallet-world.ts';

const MARKET = testMarket('SOL-USDC');
const MARKET_ID = MARKET.marketId;
const RUNS = Number(process.env['MISSED_MEMO_RUNS'] ?? 60);

let dir: string;
let keyFile: KeyFile;
let hasher: NoteHasher;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'missed-memo-'));
  keyFile = await KeyFile.create(join(dir, 'key.json'));
  hasher = await loadNoteHasher();
});
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Missed matches, learned from a later record only (a full fill: record_only): `ended_record`, the
 * order's record after it was cancelled, expired, or failed to settle its next match;
 * `pending_record`, the record while its next match waits for settlement.
 */
type Delivery =
  | 'event_and_memo'
  | 'event_only'
  | 'record_only'
  | 'memo_after_scan'
  | 'ended_record'
  | 'pending_record';

const scenario = fc.record({
  side: fc.constantFrom<'bid' | 'ask'>('bid', 'ask'),
  tick: fc.constantFrom(1n, 10n),
  scale: fc.constantFrom(100n, 1000n),
  limitTicks: fc.integer({ min: 1, max: 150 }),
  amount: fc.integer({ min: 2, max: 60 }),
  surplus: fc.integer({ min: 0, max: 40 }),
  matches: fc.array(
    fc.record({
      percent: fc.integer({ min: 1, max: 100 }),
      offsetTicks: fc.integer({ min: 0, max: 300 }),
      noise: fc.integer({ min: 0, max: 3 }),
      /** Shares of the counterparties after the first, in percent of what is left. */
      splits: fc.array(fc.integer({ min: 1, max: 100 }), { maxLength: 3 }),
      delivery: fc.constantFrom<Delivery>(
        'event_and_memo',
        'event_only',
        'record_only',
        'memo_after_scan',
        'ended_record',
        'pending_record',
      ),
      ending: fc.constantFrom<'cancelled' | 'expired' | 'settlement_failed'>(
        'cancelled',
        'expired',
        'settlement_failed',
      ),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

test('outputs of matches without memos are derived, searched and confirmed in the tree', async () => {
  let runIndex = 0;
  await fc.assert(
    fc.asyncProperty(scenario, async (s) => {
      runIndex += 1;
      await runScenario(s, `${runIndex}`.padStart(32, '0'));
    }),
    { numRuns: RUNS },
  );
});

async function runScenario(s: Scenario, orderId: string): Promise<void> {
  const owner = keyFile.publicParts.owner_commitment;
  const world = new TreeWorld(hasher, owner, keyFile.publicParts.viewing_pubkey);
  const wallet = await NoteWallet.open(keyFile, null);
  const bid = s.side === 'bid';
  const limit = s.limitTicks === 0 ? 0n : BigInt(s.limitTicks) * s.tick;
  const amount = BigInt(s.amount);
  const cost = bid ? (amount * limit) / s.scale : amount;
  const spentMint = bid ? MARKET.quoteMint : MARKET.baseMint;
  const receivedMint = bid ? MARKET.baseMint : MARKET.quoteMint;
  const { note: deposit } = wallet.prepareDeposit({ mint: spentMint, value: cost + 1n + BigInt(s.surplus) });
  world.append(deposit.commitment);
  await wallet.scan(world);
  const claimed = wallet.claim(spentMint, cost, orderId);
  assert.ok(claimed);

  const held = new Map<string, bigint>(); // what the chain holds for the owner, by mint
  const add = (mint: string, value: bigint) => held.set(mint, (held.get(mint) ?? 0n) + value);
  let parent = { innerHash: deposit.inner_hash, value: deposit.value };
  let filled = 0n;
  let ended = false;
  for (const [index, m] of s.matches.entries()) {
    const remaining = amount - filled;
    const last = index === s.matches.length - 1;
    const base = last ? remaining : min(remaining, 1n + ((remaining - 1n) * BigInt(m.percent)) / 100n);
    const full = base === remaining;
    // The core passes over a pair whose fill moves no quote: the price pays a unit for the match.
    const lowest = ((s.scale + base - 1n) / base + s.tick - 1n) / s.tick;
    const price = bid
      ? max(s.tick, limit - BigInt(m.offsetTicks) * s.tick)
      : max(lowest * s.tick, max(s.tick, limit) + BigInt(m.offsetTicks) * s.tick);
    if (price < lowest * s.tick) break; // a bid too small to pay a unit at its limit never fills
    const quote = quoteOfFills(splitBetweenCounterparties(base, m.splits, price, s.scale), price, s.scale);
    const paid = bid ? quote : base;
    const matchId = BigInt(index + 1);
    const spent = { ownerCommitment: owner, innerHash: parent.innerHash };
    const received = deriveFillNote(hasher, spent, assetIdOfMint(receivedMint), bid ? base : quote);
    const change = deriveChangeNote(hasher, spent, assetIdOfMint(spentMint), parent.value - paid);
    for (let i = 0; i < m.noise; i += 1)
      world.append(`${(index * 10 + i + 1).toString(16).padStart(64, '0')}`);
    if (received.value > 0n) world.append(received.hex.commitment);
    if (change.value > 0n) world.append(change.hex.commitment);
    filled += base;

    const facts: FillFacts = {
      side: s.side,
      price_limit: limit,
      market: {
        base_mint: MARKET.baseMint,
        quote_mint: MARKET.quoteMint,
        tick_size: s.tick,
        price_scale: s.scale,
      },
      base_quantity: base,
    };
    const kind = full ? 'fully_filled' : 'partially_filled';
    // A later record is all that tells of a partial fill; of a full fill, its own record.
    const laterRecord = m.delivery === 'pending_record' || m.delivery === 'ended_record';
    if (m.delivery === 'pending_record' && !full) {
      // The match is missed; the record read while the next one waits for settlement names it.
      wallet.applyOrderOutcome({
        order_id: orderId,
        kind: 'pending_settlement',
        match_id: matchId + 1n,
        fill: { ...facts, change_commitment: change.hex.commitment },
      });
    } else if (m.delivery === 'ended_record' && !full) {
      // The match is missed; the order then ends resting on its change, which is free again (after
      // the lock, when the next match failed to settle: that match's id is the record's).
      const failed = m.ending === 'settlement_failed';
      wallet.applyOrderOutcome({
        order_id: orderId,
        kind: m.ending,
        match_id: failed ? matchId + 1n : matchId,
        ...(failed ? { lock_expiry_slot: 5n } : {}),
        fill: { ...facts, change_commitment: change.hex.commitment },
      });
      if (received.value > 0n) add(receivedMint, received.value);
      if (change.value > 0n) add(spentMint, change.value);
      parent = { innerHash: change.hex.innerHash, value: change.value };
      ended = true;
      break;
    }
    const event = () =>
      wallet.applyOrderOutcome({
        order_id: orderId,
        kind,
        match_id: matchId,
        ...(full ? {} : { new_note_amount: change.value }),
        fill: { ...facts, ...(full ? {} : { change_value: change.value }) },
      });
    const memo = () =>
      wallet.applyFill(fillMessage(orderId, matchId, received, change, receivedMint, spentMint));
    if (laterRecord && !full) {
      // told by the record above
    } else if (m.delivery === 'record_only' || laterRecord) {
      wallet.applyOrderOutcome({
        order_id: orderId,
        kind,
        match_id: matchId,
        fill: { ...facts, ...(full ? {} : { change_commitment: change.hex.commitment }) },
      });
    } else {
      event();
      if (m.delivery === 'event_and_memo') memo();
      if (m.delivery === 'memo_after_scan') {
        await wallet.scan(world);
        memo();
      }
    }
    if (received.value > 0n) add(receivedMint, received.value);
    if (full && change.value > 0n) add(spentMint, change.value);
    parent = { innerHash: change.hex.innerHash, value: change.value };
    if (full) break;
  }
  await wallet.scan(world);

  const open = filled < amount && !ended;
  // What stays open may only be an output the facts allow to be empty (and the chain holds none).
  for (const left of wallet.unresolvedOutputs()) assert.ok(left.mayBeEmpty, left.reason);
  wallet.validate();
  const spendable = new Map(wallet.balances().map((b) => [b.mint, b.spendable]));
  for (const mint of [MARKET.baseMint, MARKET.quoteMint]) {
    assert.equal(spendable.get(mint) ?? 0n, held.get(mint) ?? 0n, `spendable ${mint}`);
  }
  const reserved = wallet.balances().reduce((sum, b) => sum + b.reserved, 0n);
  assert.equal(reserved, open ? parent.value : 0n, 'the rest of an open order rests on its change');
  for (const note of wallet.notes().filter((n: WalletNote) => n.status !== 'spent')) {
    assert.equal(world.leaves[Number(note.leaf_index)], note.commitment, 'a counted note is its leaf');
  }
}

/**
 * The base of each fill of a match against up to splits.length + 1 counterparties: every fill moves
 * at least one quote unit (the core passes a pair over otherwise), so a share too small for that
 * joins the next. The match as a whole must pay one unit at `price`.
 */
function splitBetweenCounterparties(base: bigint, splits: readonly number[], price: bigint, scale: bigint) {
  const shares: bigint[] = [];
  let left = base;
  for (const percent of splits) {
    const share = max(1n, (left * BigInt(percent)) / 200n);
    if (share >= left) break;
    shares.push(share);
    left -= share;
  }
  shares.push(left);
  const fills: bigint[] = [];
  let carried = 0n;
  for (const share of shares) {
    carried += share;
    if ((carried * price) / scale >= 1n) {
      fills.push(carried);
      carried = 0n;
    }
  }
  assert.ok(fills.length > 0, 'the match pays a quote unit');
  if (carried > 0n) fills[fills.length - 1] = (fills.at(-1) as bigint) + carried;
  return fills;
}

/** What the core's batch pays for a match made of `fills` (core batch/run-batch.ts applyFills). */
function quoteOfFills(fills: readonly bigint[], price: bigint, scale: bigint): bigint {
  return fills.reduce((sum, fill) => sum + (fill * price) / scale, 0n);
}

/** Every split of `base` into fills of at least one quote unit each, as the quote it pays. */
function quotesOfEverySplit(base: number, price: bigint, scale: bigint): Set<bigint> {
  const quotes = new Set<bigint>();
  const walk = (left: number, largest: number, paid: bigint) => {
    if (left === 0) quotes.add(paid);
    for (let fill = Math.min(left, largest); fill >= 1; fill -= 1) {
      const quote = (BigInt(fill) * price) / scale;
      if (quote >= 1n) walk(left - fill, fill, paid + quote);
    }
  };
  walk(base, base, 0n);
  return quotes;
}

test('every quote a batch can pay for a match is a candidate value, at a price its limit allows', () => {
  fc.assert(
    fc.property(
      fc.record({
        base: fc.integer({ min: 1, max: 14 }),
        scale: fc.constantFrom(1n, 3n, 10n, 12n, 100n, 1000n),
        tick: fc.constantFrom(1n, 5n, 10n),
        priceTicks: fc.integer({ min: 1, max: 400 }),
        limitOffsetTicks: fc.integer({ min: 0, max: 5 }),
      }),
      ({ base, scale, tick, priceTicks, limitOffsetTicks }) => {
        const price = BigInt(priceTicks) * tick;
        const quotes = quotesOfEverySplit(base, price, scale);
        const full = (BigInt(base) * price) / scale;
        const shortfallMax = quoteShortfallMax(BigInt(base), price, scale);
        if (quotes.size === 0) {
          assert.equal(shortfallMax, -1n, 'no fill moves quote at this price');
          return;
        }
        // Each split pays floor(base x price / scale) or less, down to the bound and never below.
        for (const quote of quotes) assert.ok(quote <= full && quote >= full - shortfallMax, `${quote}`);
        const offset = BigInt(limitOffsetTicks) * tick;
        for (const side of ['bid', 'ask'] as const) {
          const priceLimit = side === 'bid' ? price + offset : max(tick, price - offset);
          const rule = { base_quantity: BigInt(base), side, price_limit: priceLimit, tick_size: tick };
          const { values } = candidateValues({ kind: 'quote', ...rule, price_scale: scale });
          const candidates = new Set(values);
          for (const quote of quotes)
            assert.ok(candidates.has(quote), `${side}: quote ${quote} is a candidate`);
        }
      },
    ),
    { numRuns: 300 },
  );
});

function fillMessage(
  orderId: string,
  matchId: bigint,
  received: ReturnType<typeof deriveFillNote>,
  change: ReturnType<typeof deriveChangeNote>,
  receivedMint: string,
  spentMint: string,
): FillMessage {
  const memoNote = (note: typeof received, mint: string) => ({
    commitment: note.hex.commitment,
    inner_hash: note.hex.innerHash,
    tree_id: 0,
    amount: note.value,
    mint,
  });
  const memo: FillMemoPlaintext = {
    fill_quantity: 1n,
    quote_amount: 1n,
    clearing_price: 1n,
    received: memoNote(received, receivedMint),
    ...(change.value === 0n ? {} : { change: memoNote(change, spentMint) }),
  };
  return {
    channel: 'fills',
    seq: 1,
    order_id: orderId,
    market_id: MARKET_ID,
    match_id: matchId,
    batch_seq: matchId,
    server_time_ms: 0,
    memo: sealFillMemo(keyFile.publicParts.viewing_pubkey, { orderId, matchId }, memo),
  };
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
