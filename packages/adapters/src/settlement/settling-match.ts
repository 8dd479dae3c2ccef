import type { MarketConfig, MatchEvent, PendingMatchView } from '@venue/core';
import {
  assetIdOfMint,
  type DerivedNote,
  deriveChangeNote,
  deriveFillNote,
  fieldToHex,
  type NoteHasher,
} from '@venue/notes';
import type { FillMemoPlaintext, MemoNote } from '@venue/protocol';
import type { MatchFact } from './match-facts.ts';
import type { NoteOpening } from './note-openings.ts';
import type { ChainSettlementLeg, ChainSettlementOutput } from './settlement-chain.ts';

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
    counterpartyMatchIds: event.counterpartyMatchIds,
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
    seenSlot,
  };
}

/** The chain leg of one match and the two notes it creates for the order's owner. */
export interface PlannedLeg {
  readonly match: SettlingMatch;
  readonly noteUseTag: string;
  readonly leg: ChainSettlementLeg;
  /** What the order bought: base for a bid, quote for an ask. */
  readonly received: DerivedNote;
  readonly receivedMint: string;
  /** What is left of the spent note (value 0 when nothing is). */
  readonly change: DerivedNote;
  readonly changeMint: string;
}

/**
 * Plans the leg of one match (decisions section 2): a bid pays `quoteAmount` of quote and receives
 * `baseQuantity` of base; an ask pays `baseQuantity` of base and receives `quoteAmount` of quote. The
 * fill note and the change note belong to the input's owner, with blindings derived from the input's
 * inner hash (notes deriveFillNote / deriveChangeNote), so the owner can re-derive both. A note of
 * value zero is not created (the chain refuses empty notes). Returns why, when the leg cannot be planned.
 */
export function planLeg(
  hasher: NoteHasher,
  market: MarketConfig,
  match: SettlingMatch,
  opening: NoteOpening,
  merkleRoot: string,
): PlannedLeg | string {
  const parent = { ownerCommitment: opening.ownerCommitment, innerHash: opening.innerHash };
  const bid = match.side === 'bid';
  const paid = bid ? match.quoteAmount : match.baseQuantity;
  const receivedMint = bid ? market.baseMint : market.quoteMint;
  const changeMint = bid ? market.quoteMint : market.baseMint;
  // The core's intake makes a note cover its order, so this names a bug upstream; the match is
  // refused (it fails as chain_rejected) as before, rather than sent in a batch the chain refuses.
  if (paid > match.note.value) return `match ${match.matchId} pays ${paid}, more than its note holds`;
  const received = deriveFillNote(
    hasher,
    parent,
    assetIdOfMint(receivedMint),
    bid ? match.baseQuantity : match.quoteAmount,
  );
  const change = deriveChangeNote(hasher, parent, assetIdOfMint(changeMint), match.note.value - paid);
  const output = (note: DerivedNote): ChainSettlementOutput => ({
    tree_id: match.note.treeId,
    commitment: note.hex.commitment,
    owner_commitment: note.hex.ownerCommitment,
    asset_id: fieldToHex(note.assetId),
    blinding: fieldToHex(note.blinding),
    value: note.value,
  });
  const noteUseTag = hasher.noteUseTagHex(opening.ownerCommitment, opening.innerHash);
  return {
    match,
    noteUseTag,
    leg: {
      input: {
        tree_id: match.note.treeId,
        note_commitment: match.note.commitment,
        note_use_tag: noteUseTag,
        merkle_root: merkleRoot,
        value: match.note.value,
      },
      // The chain stores no empty notes: a zero fill or a spent-out note has no output.
      outputs: [received, change].filter((note) => note.value > 0n).map(output),
    },
    received,
    receivedMint,
    change,
    changeMint,
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
