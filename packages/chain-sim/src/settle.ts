import {
  assetIdOfMint,
  batchBinding,
  fillPairingFault,
  type MatchStatement,
  type NoteHasher,
  padFillTags,
} from '@venue/notes';
import { type SettlementFailureReason, verifyDigest } from '@venue/protocol';
import type { LeafRecord, Ledger } from './ledger.ts';
import type { MatchProofCheck } from './match-proofs.ts';
import { digestOf, settlementBytes } from './messages.ts';
import { fieldOf, isLive } from './note-checks.ts';
import type { Hex32, MarketAccount, SettlementBatch, SettlementLeg, SettlementOutput } from './types.ts';

/**
 * The chain's checks of a settlement batch (docs/chain-sim.md section 6), in a fixed order: the
 * first failing check gives the batch's definitive reason. The cheap checks of the chain's own
 * state come first, the proofs last. A batch that passes is applied whole: every input consumed,
 * every lock released, every output appended (its commitment only), the market's sequence moved on.
 */

export interface SettlementContext {
  readonly ledger: Ledger;
  readonly hasher: NoteHasher;
  readonly slot: bigint;
  /** Settlement signer of the final governance (the all-zero key accepts nothing). */
  readonly signer: Hex32;
  readonly proofs: MatchProofCheck;
}

export interface SettlementPlan {
  readonly market: MarketAccount;
  readonly tags: readonly Hex32[];
  readonly outputs: readonly Omit<LeafRecord, 'leaf_index'>[];
}

export type SettlementCheck =
  | { readonly ok: true; readonly plan: SettlementPlan }
  | { readonly ok: false; readonly reason: SettlementFailureReason; readonly message: string };

class Refusal {
  constructor(
    readonly reason: SettlementFailureReason,
    readonly message: string,
  ) {}
}

function refuse(reason: SettlementFailureReason, message: string): never {
  throw new Refusal(reason, message);
}

export function checkSettlement(ctx: SettlementContext, batch: SettlementBatch): SettlementCheck {
  try {
    return { ok: true, plan: plan(ctx, batch) };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.reason, message: error.message };
    throw error;
  }
}

function plan(ctx: SettlementContext, batch: SettlementBatch): SettlementPlan {
  const { ledger, slot } = ctx;
  // 1
  if (slot > batch.deadline_slot) {
    refuse(
      'confirmation_timeout',
      `the batch reached the chain at slot ${slot}, after its deadline ${batch.deadline_slot}`,
    );
  }
  // 2
  if (
    batch.signer !== ctx.signer ||
    !verifyDigest(batch.signer, digestOf(settlementBytes(batch)), batch.signature)
  ) {
    refuse('signer_rejected', 'the batch is not signed by the settlement signer of the final governance');
  }
  // 3
  const market = ledger.markets.get(batch.market_id);
  if (market === undefined) refuse('chain_rejected', `no market account at ${batch.market_id}`);
  if (batch.batch_seq !== market.next_batch_seq) {
    refuse(
      'chain_rejected',
      `batch_seq ${batch.batch_seq} breaks the sequence: the market expects ${market.next_batch_seq}`,
    );
  }
  // 4 to 9, every input first, then the outputs (10), so the reasons keep the documented order.
  const seen = new Set<Hex32>();
  const inputs = batch.legs.map((leg, i) => checkInput(ctx, batch.market_id, leg, `legs[${i}].input`, seen));
  const outputs = batch.legs.flatMap((leg, i) =>
    checkOutputs(ctx, market, leg, inputs[i], `legs[${i}]`, seen),
  );
  checkCapacity(ledger, outputs);
  // 11 and 12
  checkProofs(ctx, batch, market);
  return { market, tags: batch.legs.map((leg) => leg.input.note_use_tag), outputs };
}

/** Checks 4 to 9 for one leg's input; returns its leaf. */
function checkInput(
  ctx: SettlementContext,
  marketId: string,
  leg: SettlementLeg,
  name: string,
  seen: Set<Hex32>,
): LeafRecord {
  const { ledger, slot } = ctx;
  const { input } = leg;
  const shard = ledger.shards[input.tree_id];
  if (shard === undefined) refuse('chain_rejected', `${name}.tree_id ${input.tree_id} is not a shard`);
  const root = shard.roots.find((entry) => entry.root === input.merkle_root);
  if (root === undefined)
    refuse('root_expired', `${name}.merkle_root is not in the recent-root window of shard ${input.tree_id}`);
  const note = ledger.notes.get(input.note_commitment);
  if (note === undefined || note.tree_id !== input.tree_id || note.leaf_index >= root.leaf_count) {
    refuse('chain_rejected', `${name}.note_commitment is not a leaf under that root`);
  }
  // A disclosed note's tag is known; an opaque note's tag is bound to its commitment by the proof (11).
  if (
    fieldOf(input.note_use_tag) === undefined ||
    (note.opening !== null && note.opening.noteUseTag !== input.note_use_tag)
  ) {
    refuse('chain_rejected', `${name}.note_use_tag is not the note's tag`);
  }
  if (seen.has(input.note_use_tag)) refuse('chain_rejected', `${name} spends a note twice in one batch`);
  seen.add(input.note_use_tag);
  if (ledger.consumed.has(input.note_use_tag)) refuse('note_consumed', `${name} was already consumed`);
  const lock = ledger.locks.get(input.note_use_tag);
  if (lock !== undefined && lock.market_id !== marketId && isLive(lock, slot)) {
    refuse('note_locked', `${name} is locked by another market's settlement until slot ${lock.expiry_slot}`);
  }
  if (lock === undefined || lock.market_id !== marketId || lock.reverted) {
    refuse('lock_reverted', `${name} holds no lock of this market (never placed, reverted or rolled back)`);
  }
  if (slot > lock.expiry_slot)
    refuse('lock_expired', `${name}: the lock expired at slot ${lock.expiry_slot}`);
  return note;
}

/**
 * Check 10 for one leg: its fill tags and outputs are well formed and every output is a new leaf.
 * An output is appended with its commitment only; its asset is the one the circuit gives it (what a
 * bid receives is base and its change quote, an ask the reverse) and its spend authority is its
 * input's (the proof shows both belong to the input's owner).
 */
function checkOutputs(
  ctx: SettlementContext,
  market: MarketAccount,
  leg: SettlementLeg,
  input: LeafRecord | undefined,
  name: string,
  seen: Set<Hex32>,
): Omit<LeafRecord, 'leaf_index'>[] {
  if (input === undefined) return [];
  leg.fill_tags.forEach((tag, j) => {
    const value = fieldOf(tag);
    if (value === undefined || value === 0n)
      refuse('chain_rejected', `${name}.fill_tags[${j}] is 0 or not a field element`);
  });
  const base = assetIdOfMint(market.base_mint);
  const quote = assetIdOfMint(market.quote_mint);
  const bid = leg.side === 'bid';
  const outputs: [string, SettlementOutput | undefined, bigint][] = [
    ['received', leg.received, bid ? base : quote],
    ['change', leg.change, bid ? quote : base],
  ];
  return outputs.flatMap(([field, output, assetId]) => {
    if (output === undefined) return [];
    const where = `${name}.${field}`;
    const { ledger } = ctx;
    if (ledger.shards[output.tree_id] === undefined)
      refuse('chain_rejected', `${where}.tree_id ${output.tree_id} is not a shard`);
    const value = fieldOf(output.commitment);
    // 0 stands for "no note" in the proof's statement: a present output never commits to it.
    if (value === undefined || value === 0n)
      refuse('chain_rejected', `${where}.commitment is 0 or not a field element`);
    if (ledger.notes.has(output.commitment) || seen.has(output.commitment))
      refuse('chain_rejected', `${where} is already a leaf or repeats in the batch`);
    seen.add(output.commitment);
    return [
      {
        tree_id: output.tree_id,
        commitment: output.commitment,
        assetId,
        opening: null,
        spendAuthority: input.spendAuthority,
      },
    ];
  });
}

/**
 * Each leg's VALID_MATCH statement, rebuilt from what the chain knows itself: the batch header it
 * checked (market, sequence, deadline: the binding), its market account (assets, price scale) and
 * the leg's public fields. Nothing the venue asserts about the market enters it.
 */
function statementsOf(
  ctx: SettlementContext,
  batch: SettlementBatch,
  market: MarketAccount,
): MatchStatement[] {
  const binding = batchBinding(ctx.hasher, {
    marketId: batch.market_id,
    batchSeq: batch.batch_seq,
    deadlineSlot: batch.deadline_slot,
    baseAssetId: assetIdOfMint(market.base_mint),
    quoteAssetId: assetIdOfMint(market.quote_mint),
    priceScale: market.price_scale,
    clearingPrice: 0n, // not part of the binding
  });
  const field = (hex: Hex32 | undefined): bigint => (hex === undefined ? 0n : BigInt(`0x${hex}`));
  return batch.legs.map((leg) => ({
    batchBinding: binding,
    baseAssetId: assetIdOfMint(market.base_mint),
    quoteAssetId: assetIdOfMint(market.quote_mint),
    priceScale: market.price_scale,
    clearingPrice: leg.clearing_price,
    side: leg.side,
    inputCommitment: field(leg.input.note_commitment),
    noteUseTag: field(leg.input.note_use_tag),
    receivedCommitment: field(leg.received?.commitment),
    changeCommitment: field(leg.change?.commitment),
    // Padded to the narrowest circuit that holds them: the width names the key that checks the proof.
    fillTags: padFillTags(leg.fill_tags.map(field)),
  }));
}

/** Checks 11 (every proof verifies for its statement) and 12 (each fill is one bid and one ask). */
function checkProofs(ctx: SettlementContext, batch: SettlementBatch, market: MarketAccount): void {
  const statements = statementsOf(ctx, batch, market);
  const valid = ctx.proofs.verify(
    statements.map((statement, i) => ({ statement, proof: batch.legs[i]?.proof ?? '' })),
  );
  const bad = valid.flatMap((ok, i) => (ok ? [] : [i]));
  if (bad.length > 0) {
    const legs = bad.map((i) => `legs[${i}]`).join(', ');
    refuse('proof_invalid', `the VALID_MATCH proofs of ${legs} do not verify (${ctx.proofs.mode})`);
  }
  const unpaired = fillPairingFault(statements);
  if (unpaired !== null) {
    const legs = unpairedLegs(statements)
      .map((i) => `legs[${i}]`)
      .join(', ');
    refuse('proof_invalid', `the fills of ${legs} do not pair: ${unpaired}`);
  }
}

/** The legs showing a tag that is not in exactly one bid and one ask (to name them; the rule is fillPairingFault's). */
function unpairedLegs(statements: readonly MatchStatement[]): number[] {
  const count = new Map<bigint, { bid: number; ask: number }>();
  for (const { side, fillTags } of statements) {
    for (const tag of fillTags.filter((t) => t !== 0n)) {
      const c = count.get(tag) ?? { bid: 0, ask: 0 };
      c[side] += 1;
      count.set(tag, c);
    }
  }
  const paired = (tag: bigint) => count.get(tag)?.bid === 1 && count.get(tag)?.ask === 1;
  return statements.flatMap(({ fillTags }, i) => (fillTags.every((t) => t === 0n || paired(t)) ? [] : [i]));
}

function checkCapacity(ledger: Ledger, outputs: readonly { tree_id: number }[]): void {
  const added = new Map<number, number>();
  for (const { tree_id } of outputs) added.set(tree_id, (added.get(tree_id) ?? 0) + 1);
  for (const [treeId, count] of added) {
    const shard = ledger.shards[treeId];
    if (shard !== undefined && shard.leaves.length + count > shard.tree.capacity) {
      refuse('chain_rejected', `shard ${treeId} has no room for ${count} more leaves`);
    }
  }
}

/** Applies a checked batch. Runs only after checkSettlement said ok, in the same slot. */
export function applySettlement(ledger: Ledger, plan: SettlementPlan, slot: bigint): LeafRecord[] {
  for (const tag of plan.tags) {
    ledger.consumed.set(tag, { note_use_tag: tag, slot, by: 'settlement' });
    ledger.locks.delete(tag);
  }
  ledger.markets.set(plan.market.market_id, {
    ...plan.market,
    next_batch_seq: plan.market.next_batch_seq + 1n,
  });
  return ledger.appendLeaves(plan.outputs, slot);
}
