import {
  type MarketConfig,
  type MatchEvent,
  type MatchFill,
  matchLists,
  type PendingMatchView,
} from '@venue/core';
import {
  assetIdOfMint,
  type DerivedNote,
  deriveChangeNote,
  deriveFillNote,
  fieldFromHex,
  fieldToHex,
  type MatchBatchHeader,
  type MatchLeg,
  type MatchProof,
  type NoteHasher,
} from '@venue/notes';
import { assert, type FillMemoPlaintext, type MemoNote } from '@venue/protocol';
import type { MatchFact } from './match-facts.ts';
import type { NoteOpening } from './note-openings.ts';
import type { ChainSettlementLeg } from './settlement-chain.ts';

/**
 * One order's part in one match, as the pipeline settles it: what the core said (a match event, or
 * a pending match found at boot), plus the note opening and the notes the settlement creates.
 */
export interface SettlingMatch {
  readonly marketId: string;
  readonly matchId: bigint;
  readonly orderId: string;
  readonly accountId: string;
  readonly side: 'bid' | 'ask';
  readonly baseQuantity: bigint;
  readonly quoteAmount: bigint;
  /** Null for a match recovered at boot without its facts (match-facts.ts): no memo then. */
  readonly clearingPrice: bigint | null;
  readonly note: {
    readonly commitment: string;
    readonly value: bigint;
    readonly treeId: number;
    readonly merkleRoot: string;
  };
  readonly viewingPubkey: string;
  readonly lockExpirySlot: bigint;
  /** Null for a match recovered without its facts: it joins its market's one group. */
  readonly counterpartyMatchIds: readonly bigint[] | null;
  /**
   * The order's fills against each counterparty (their amounts pair with the counterparty's own),
   * which the VALID_MATCH proof needs; null for a match recovered without them (match-facts.ts).
   */
  readonly fills: readonly MatchFill[] | null;
  /** Slot at which the pipeline first saw the match (latency telemetry). */
  readonly seenSlot: bigint;
}

export function fromMatchEvent(event: MatchEvent, seenSlot: bigint): SettlingMatch {
  return {
    marketId: event.marketId,
    matchId: event.matchId,
    orderId: event.orderId,
    accountId: event.accountId,
    side: event.side,
    baseQuantity: event.baseQuantity,
    quoteAmount: event.quoteAmount,
    clearingPrice: event.clearingPrice,
    note: {
      commitment: event.noteCommitment,
      value: event.noteValue,
      treeId: event.treeId,
      merkleRoot: event.merkleRoot,
    },
    viewingPubkey: event.viewingPubkey,
    lockExpirySlot: event.lockExpirySlot,
    ...matchLists(event),
    seenSlot,
  };
}

export function fromPendingMatch(
  view: PendingMatchView,
  seenSlot: bigint,
  fact: MatchFact | undefined,
): SettlingMatch {
  return {
    marketId: view.marketId,
    matchId: view.matchId,
    orderId: view.orderId,
    accountId: view.accountId,
    side: view.side,
    baseQuantity: view.baseQuantity,
    quoteAmount: view.quoteAmount,
    clearingPrice: fact?.clearingPrice ?? null,
    note: view.note,
    viewingPubkey: view.viewingPubkey,
    lockExpirySlot: view.lockExpirySlot,
    counterpartyMatchIds: fact?.counterpartyMatchIds ?? null,
    fills: fact?.fills ?? null,
    seenSlot,
  };
}

/** One match as the pipeline settles it: the note it spends, and the two notes it creates. */
export interface PlannedLeg {
  readonly match: SettlingMatch;
  readonly noteUseTag: string;
  /** The root the chain checks the input under (the order's, or the current one for a change note). */
  readonly merkleRoot: string;
  /** The input's opening as the enclave holds it: the proof's private inputs. */
  readonly opening: { readonly ownerCommitment: bigint; readonly innerHash: bigint };
  /** What the order bought: base for a bid, quote for an ask. */
  readonly received: DerivedNote;
  readonly receivedMint: string;
  /** What is left of the spent note (value 0 when nothing is). */
  readonly change: DerivedNote;
  readonly changeMint: string;
}

/**
 * What planning one leg hashes: the spent note's opening and the two notes it turns into (asset and
 * value each). Plain data, so it can be handed to a worker thread (workers/settlement-pool.ts).
 */
export interface LegHashInput {
  readonly ownerCommitment: string;
  readonly innerHash: string;
  readonly receivedAssetId: bigint;
  readonly receivedValue: bigint;
  readonly changeAssetId: bigint;
  readonly changeValue: bigint;
}

/** What planning one leg hashed: the spent note's use tag and the two notes it creates. */
export interface LegHashes {
  readonly noteUseTag: string;
  readonly received: DerivedNote;
  readonly change: DerivedNote;
}

/** A leg's plan before hashing: its hash input, and what the plan keeps beside the hashes. */
export interface LegPlanInput {
  readonly hash: LegHashInput;
  readonly receivedMint: string;
  readonly changeMint: string;
}

/**
 * The unhashed half of a leg's plan (decisions section 2): a bid pays `quoteAmount` of quote and
 * receives `baseQuantity` of base; an ask pays `baseQuantity` of base and receives `quoteAmount` of
 * quote. Returns why, when the leg cannot be planned.
 */
export function legPlanInput(
  market: MarketConfig,
  match: SettlingMatch,
  opening: NoteOpening,
): LegPlanInput | string {
  const bid = match.side === 'bid';
  const paid = bid ? match.quoteAmount : match.baseQuantity;
  const receivedMint = bid ? market.baseMint : market.quoteMint;
  const changeMint = bid ? market.quoteMint : market.baseMint;
  // The core's intake makes a note cover its order, so this names a bug upstream; the match is
  // refused (it fails as chain_rejected) as before, rather than sent in a batch the chain refuses.
  if (paid > match.note.value) return `match ${match.matchId} pays more than its note holds`;
  return {
    hash: {
      ownerCommitment: opening.ownerCommitment,
      innerHash: opening.innerHash,
      receivedAssetId: assetIdOf(receivedMint),
      receivedValue: bid ? match.baseQuantity : match.quoteAmount,
      changeAssetId: assetIdOf(changeMint),
      changeValue: match.note.value - paid,
    },
    receivedMint,
    changeMint,
  };
}

/** Asset ids by mint: a sha256 each, asked twice per leg, over the few mints the markets list. */
const assetIds = new Map<string, bigint>();
const ASSET_IDS_CACHED_MAX = 1024;

function assetIdOf(mint: string): bigint {
  let id = assetIds.get(mint);
  if (id === undefined) {
    id = assetIdOfMint(mint);
    if (assetIds.size >= ASSET_IDS_CACHED_MAX) assetIds.clear();
    assetIds.set(mint, id);
  }
  return id;
}

/**
 * The hashing half (several Poseidon hashes): the fill note and the change note belong to the
 * input's owner, with blindings derived from the input's inner hash (notes deriveFillNote /
 * deriveChangeNote), so the owner can re-derive both; the VALID_MATCH proof shows the chain the same
 * derivation. Pure: the pipeline's thread or a worker gives the same result.
 */
export function hashLeg(hasher: NoteHasher, input: LegHashInput): LegHashes {
  const parent = { ownerCommitment: input.ownerCommitment, innerHash: input.innerHash };
  return {
    noteUseTag: hasher.noteUseTagHex(input.ownerCommitment, input.innerHash),
    received: deriveFillNote(hasher, parent, input.receivedAssetId, input.receivedValue),
    change: deriveChangeNote(hasher, parent, input.changeAssetId, input.changeValue),
  };
}

/** The planned leg of a match from its plan input and its hashes. */
export function plannedLegOf(
  match: SettlingMatch,
  input: LegPlanInput,
  hashes: LegHashes,
  merkleRoot: string,
): PlannedLeg {
  return {
    match,
    noteUseTag: hashes.noteUseTag,
    merkleRoot,
    opening: {
      ownerCommitment: fieldFromHex(input.hash.ownerCommitment, 'owner_commitment'),
      innerHash: fieldFromHex(input.hash.innerHash, 'note_inner_hash'),
    },
    received: hashes.received,
    receivedMint: input.receivedMint,
    change: hashes.change,
    changeMint: input.changeMint,
  };
}

/** Plans the leg of one match on this thread (legPlanInput, hashLeg, plannedLegOf). */
export function planLeg(
  hasher: NoteHasher,
  market: MarketConfig,
  match: SettlingMatch,
  opening: NoteOpening,
  merkleRoot: string,
): PlannedLeg | string {
  const input = legPlanInput(market, match, opening);
  if (typeof input === 'string') return input;
  return plannedLegOf(match, input, hashLeg(hasher, input.hash), merkleRoot);
}

/** What every leg of one auction batch shares in its proof (the settlement batch's binding included). */
export function proofHeaderOf(
  market: MarketConfig,
  leg: PlannedLeg,
  batch: { readonly batchSeq: bigint; readonly deadlineSlot: bigint },
): MatchBatchHeader {
  const { clearingPrice } = leg.match;
  assert(clearingPrice !== null, 'a planned leg has its clearing price');
  return {
    marketId: leg.match.marketId,
    batchSeq: batch.batchSeq,
    deadlineSlot: batch.deadlineSlot,
    baseAssetId: assetIdOfMint(market.baseMint),
    quoteAssetId: assetIdOfMint(market.quoteMint),
    priceScale: market.priceScale,
    clearingPrice,
  };
}

/**
 * The proof's private leg: the input's opening and each fill against a counterparty, with the salt
 * both legs of that fill share (`saltOf`, keyed by the pair), so their public tags are equal.
 */
export function proofLegOf(planned: PlannedLeg, saltOf: (a: bigint, b: bigint) => bigint): MatchLeg {
  const { match } = planned;
  assert(match.fills !== null, 'a planned leg has its fills');
  return {
    side: match.side,
    input: { ...planned.opening, value: match.note.value },
    fills: match.fills.map((fill) => ({
      baseAmount: fill.baseQuantity,
      quoteAmount: fill.quoteAmount,
      salt: saltOf(match.matchId, fill.counterpartyMatchId),
    })),
  };
}

/**
 * The chain leg of a proved match: commitments, tags and the proof, nothing of an amount or an
 * owner. The proof's outputs must be the notes the pipeline derived (the memos describe those).
 */
export function chainLegOf(planned: PlannedLeg, proof: MatchProof): ChainSettlementLeg {
  const { match } = planned;
  const { statement } = proof;
  const output = (name: 'received' | 'change', note: DerivedNote, proved: bigint) => {
    assert(
      proved === (note.value === 0n ? 0n : note.commitment),
      `the proof of match ${match.matchId} creates other notes than the pipeline derived`,
    );
    // A note of value 0 is not created: the proof's commitment is 0 and the leg names no output.
    return note.value === 0n
      ? {}
      : { [name]: { tree_id: match.note.treeId, commitment: note.hex.commitment } };
  };
  assert(match.fills !== null && match.clearingPrice !== null, 'a proved leg has its fills');
  return {
    input: {
      tree_id: match.note.treeId,
      note_commitment: match.note.commitment,
      note_use_tag: planned.noteUseTag,
      merkle_root: planned.merkleRoot,
    },
    side: match.side,
    clearing_price: match.clearingPrice,
    ...output('received', planned.received, statement.receivedCommitment),
    ...output('change', planned.change, statement.changeCommitment),
    fill_tags: statement.fillTags.slice(0, match.fills.length).map(fieldToHex),
    proof: proof.proof,
  };
}

/** The memo plaintext of a settled leg (protocol FillMemoPlaintext), with leaf indexes when known. */
export function memoOf(
  planned: PlannedLeg,
  clearingPrice: bigint,
  leafIndex: (commitment: string) => bigint | undefined,
): FillMemoPlaintext {
  const note = (derived: DerivedNote, mint: string): MemoNote => {
    const index = leafIndex(derived.hex.commitment);
    return {
      commitment: derived.hex.commitment,
      inner_hash: derived.hex.innerHash,
      tree_id: planned.match.note.treeId,
      ...(index === undefined ? {} : { leaf_index: index }),
      amount: derived.value,
      mint,
    };
  };
  return {
    fill_quantity: planned.match.baseQuantity,
    quote_amount: planned.match.quoteAmount,
    clearing_price: clearingPrice,
    received: note(planned.received, planned.receivedMint),
    ...(planned.change.value === 0n ? {} : { change: note(planned.change, planned.changeMint) }),
  };
}
