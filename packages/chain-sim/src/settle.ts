import { fieldToHex, type NoteHasher } from '@venue/notes';
import { type SettlementFailureReason, verifyDigest } from '@venue/protocol';
import type { LeafRecord, Ledger } from './ledger.ts';
import { digestOf, settlementBytes } from './messages.ts';
import { fieldOf, isLive } from './note-checks.ts';
import type { Hex32, MarketAccount, SettlementBatch } from './types.ts';

/**
 * The chain's checks of a settlement batch (docs/chain-sim.md section 6), in a fixed order: the
 * first failing check gives the batch's definitive reason. A batch that passes is applied whole:
 * every input consumed, every lock released, every output appended, the market's sequence moved on.
 */

export interface SettlementContext {
  readonly ledger: Ledger;
  readonly hasher: NoteHasher;
  readonly slot: bigint;
  /** Settlement signer of the final governance (the all-zero key accepts nothing). */
  readonly signer: Hex32;
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
  if (slot > batch.deadline_slot) {
    refuse(
      'confirmation_timeout',
      `the batch reached the chain at slot ${slot}, after its deadline ${batch.deadline_slot}`,
    );
  }
  if (
    batch.signer !== ctx.signer ||
    !verifyDigest(batch.signer, digestOf(settlementBytes(batch)), batch.signature)
  ) {
    refuse('signer_rejected', 'the batch is not signed by the settlement signer of the final governance');
  }
  const market = ledger.markets.get(batch.market_id);
  if (market === undefined) refuse('chain_rejected', `no market account at ${batch.market_id}`);
  if (batch.batch_seq !== market.next_batch_seq) {
    refuse(
      'chain_rejected',
      `batch_seq ${batch.batch_seq} breaks the sequence: the market expects ${market.next_batch_seq}`,
    );
  }
  if (batch.proof !== '')
    refuse('chain_rejected', 'VALID_MATCH_BATCH proofs are not verified yet; send an empty proof');
  const assets = marketAssets(ledger, market);
  const totals = new Map<bigint, bigint>();
  const tags: Hex32[] = [];
  const outputs: Omit<LeafRecord, 'leaf_index'>[] = [];
  const seen = new Set<Hex32>();
  // Every input first, then every output, so the reasons keep the documented order.
  const inputs = batch.legs.map((leg, i) => {
    const note = checkInput(ctx, batch.market_id, leg.input, `legs[${i}].input`, seen);
    if (!assets.has(note.assetId))
      refuse('chain_rejected', `legs[${i}].input holds an asset this market does not trade`);
    add(totals, note.assetId, note.value);
    tags.push(note.noteUseTag);
    return note;
  });
  batch.legs.forEach((leg, i) => {
    const note = inputs[i];
    if (note === undefined) return;
    leg.outputs.forEach((output, j) => {
      const name = `legs[${i}].outputs[${j}]`;
      const record = checkOutput(ctx, output, note, name, seen);
      if (!assets.has(record.assetId))
        refuse('chain_rejected', `${name} holds an asset this market does not trade`);
      add(totals, record.assetId, -record.value);
      outputs.push(record);
    });
  });
  for (const [assetId, difference] of totals) {
    if (difference !== 0n) {
      const mint = ledger.mints.get(fieldToHex(assetId)) ?? fieldToHex(assetId);
      refuse('chain_rejected', `value of ${mint} is not conserved: inputs minus outputs is ${difference}`);
    }
  }
  checkCapacity(ledger, outputs);
  return { market, tags, outputs };
}

function checkInput(
  ctx: SettlementContext,
  marketId: string,
  input: SettlementBatch['legs'][number]['input'],
  name: string,
  seen: Set<Hex32>,
): LeafRecord {
  const { ledger, slot } = ctx;
  const shard = ledger.shards[input.tree_id];
  if (shard === undefined) refuse('chain_rejected', `${name}.tree_id ${input.tree_id} is not a shard`);
  const root = shard.roots.find((entry) => entry.root === input.merkle_root);
  if (root === undefined)
    refuse('root_expired', `${name}.merkle_root is not in the recent-root window of shard ${input.tree_id}`);
  const note = ledger.notes.get(input.note_commitment);
  if (note === undefined || note.tree_id !== input.tree_id || note.leaf_index >= root.leaf_count) {
    refuse('chain_rejected', `${name}.note_commitment is not a leaf under that root`);
  }
  if (note.noteUseTag !== input.note_use_tag || note.value !== input.value) {
    refuse('chain_rejected', `${name}: note_use_tag or value does not match the note`);
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

function checkOutput(
  ctx: SettlementContext,
  output: SettlementBatch['legs'][number]['outputs'][number],
  input: LeafRecord,
  name: string,
  seen: Set<Hex32>,
): Omit<LeafRecord, 'leaf_index'> {
  const { ledger, hasher } = ctx;
  if (ledger.shards[output.tree_id] === undefined)
    refuse('chain_rejected', `${name}.tree_id ${output.tree_id} is not a shard`);
  const owner = fieldOf(output.owner_commitment);
  const assetId = fieldOf(output.asset_id);
  const blinding = fieldOf(output.blinding);
  if (owner === undefined || assetId === undefined || blinding === undefined) {
    refuse('chain_rejected', `${name}: an opening field is not a BN254 field element`);
  }
  // The fill and the change belong to whoever owned the input: the enclave cannot redirect value.
  if (owner !== input.ownerCommitment)
    refuse('chain_rejected', `${name} is not owned by the owner of its input`);
  const innerHash = hasher.innerHash(assetId, blinding);
  const commitment = fieldToHex(hasher.commitment(owner, innerHash, output.value));
  if (commitment !== output.commitment)
    refuse('chain_rejected', `${name}.commitment does not match its opening`);
  if (ledger.notes.has(commitment) || seen.has(commitment))
    refuse('chain_rejected', `${name} is already a leaf`);
  seen.add(commitment);
  return {
    tree_id: output.tree_id,
    commitment,
    ownerCommitment: owner,
    innerHash,
    assetId,
    value: output.value,
    noteUseTag: fieldToHex(hasher.noteUseTag(owner, innerHash)),
    spendAuthority: input.spendAuthority,
  };
}

function marketAssets(ledger: Ledger, market: MarketAccount): Set<bigint> {
  const assets = new Set<bigint>();
  for (const [assetHex, mint] of ledger.mints) {
    if (mint === market.base_mint || mint === market.quote_mint) assets.add(BigInt(`0x${assetHex}`));
  }
  return assets;
}

function add(totals: Map<bigint, bigint>, assetId: bigint, value: bigint): void {
  totals.set(assetId, (totals.get(assetId) ?? 0n) + value);
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
