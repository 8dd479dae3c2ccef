// A wallet that misses fill memos still ends up with every note the chain holds for it. Random
// orders (either side, random tick, scale, limit and surplus) are filled by random matches at
// random clearing prices on the order's side of its limit; the settlement appends the outputs the
// venue's pipeline makes (planLeg: blindings from the spent note's inner hash) among other owners'
// leaves. Each match reaches the wallet one way: event and memo, the event alone, the venue's
// record alone (GET /orders/{id} after a gap), or the memo only after a scan already searched.
// After a final scan the wallet's balances equal what the chain holds for it, nothing is left
// unresolved, and every note it counts is a leaf with the commitment it claims.
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
import { TreeWorld } from './wallet-world.ts';

const MARKET = testMarket('SOL-USDC');
const MARKET_ID = MARKET.marketId;
const RUNS = Number(process.env['MISSED_MEMO_RUNS'] ?? 25);

let dir: string;
let keyFile: KeyFile;
let hasher: NoteHasher;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'missed-memo-'));
  keyFile = await KeyFile.create(join(dir, 'key.json'));
  hasher = await loadNoteHasher();
});
after(() => rmSync(dir, { recursive: true, force: true }));

type Delivery = 'event_and_memo' | 'event_only' | 'record_only' | 'memo_after_scan';

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
      delivery: fc.constantFrom<Delivery>('event_and_memo', 'event_only', 'record_only', 'memo_after_scan'),
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
  for (const [index, m] of s.matches.entries()) {
    const remaining = amount - filled;
    const last = index === s.matches.length - 1;
    const base = last ? remaining : min(remaining, 1n + ((remaining - 1n) * BigInt(m.percent)) / 100n);
    const full = base === remaining;
    const price = bid
      ? max(s.tick, limit - BigInt(m.offsetTicks) * s.tick)
      : max(s.tick, limit) + BigInt(m.offsetTicks) * s.tick;
    const quote = (base * price) / s.scale;
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
    if (m.delivery === 'record_only') {
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

  const open = filled < amount;
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
