/**
 * A small world for wallet tests: one public tree shard and a settlement that does what the venue's
 * pipeline does to an order's note (adapters settlement/settling-match.ts planLeg and memoOf): the
 * received and change notes derive from the parent's inner hash, zero-value outputs are left out,
 * the leaves are appended, and the memo is sealed to the owner's viewing key with the real scheme.
 */
import {
  assetIdOfMint,
  type DerivedNote,
  deriveChangeNote,
  deriveFillNote,
  type NoteHasher,
  sealFillMemo,
} from '@venue/notes';
import type {
  FillMemoPlaintext,
  FillMessage,
  InclusionProofResponse,
  LeavesResponse,
  MemoNote,
  OrderEvent,
  TreeRoot,
} from '@venue/protocol';
import { type TreeReader, VenueApiError } from '../src/index.ts';

const MARKET_ID = '11111111111111111111111111111111';
const ROOT = '00'.repeat(32);

/** The note an order rests on, as the venue knows it from the order's fields. */
export interface BackingNote {
  readonly commitment: string;
  readonly innerHash: string;
  readonly value: bigint;
  readonly mint: string;
}

/** One settled match of one order: what the orders channel and the fills channel carry. */
export interface Settled {
  readonly event: OrderEvent;
  readonly message: FillMessage;
  readonly memo: FillMemoPlaintext;
  /** The note the order rests on afterwards (its change), when it keeps resting. */
  readonly next: BackingNote | undefined;
}

export class TreeWorld implements TreeReader {
  readonly leaves: string[] = [];
  #matchId = 0n;
  #seq = 0;

  constructor(
    readonly hasher: NoteHasher,
    readonly ownerCommitment: string,
    readonly viewingPubkey: string,
  ) {}

  #nextSeq(): number {
    this.#seq += 1;
    return this.#seq;
  }

  append(commitment: string): bigint {
    this.leaves.push(commitment);
    return BigInt(this.leaves.length - 1);
  }

  async treeRoots(): Promise<TreeRoot[]> {
    return [{ tree_id: 0, root: ROOT, leaf_count: BigInt(this.leaves.length), slot: 0n }];
  }

  /** Pages of at most 3 leaves, so scans cross page boundaries. */
  async treeLeaves(treeId: number, from: bigint): Promise<LeavesResponse> {
    const end = Math.min(this.leaves.length, Number(from) + 3);
    const leaves = this.leaves.slice(Number(from), end).map((commitment, i) => ({
      index: from + BigInt(i),
      commitment,
    }));
    const more = end < this.leaves.length;
    return {
      tree_id: treeId,
      from,
      leaves,
      ...(more ? { next_from: BigInt(end) } : {}),
      root: ROOT,
      leaf_count: BigInt(this.leaves.length),
    };
  }

  async treeInclusion(treeId: number, commitment: string): Promise<InclusionProofResponse> {
    const index = this.leaves.indexOf(commitment);
    if (index < 0) {
      throw new VenueApiError({ status: 404, code: 1305, message: 'the note commitment is not a leaf' });
    }
    // Only the fields a scan reads; proving tests use the real venue.
    return { tree_id: treeId, leaf_index: BigInt(index), commitment } as InclusionProofResponse;
  }

  /**
   * Settles one match of `orderId` backed by `note`: it pays `paid` of the note's mint and
   * receives `received` of `receivedMint`. A partial fill keeps the order resting on its change.
   */
  settle(
    orderId: string,
    note: BackingNote,
    fill: { paid: bigint; received: bigint; receivedMint: string; full: boolean },
  ): Settled {
    this.#matchId += 1n;
    const matchId = this.#matchId;
    const parent = { ownerCommitment: this.ownerCommitment, innerHash: note.innerHash };
    const received = deriveFillNote(this.hasher, parent, assetIdOfMint(fill.receivedMint), fill.received);
    const change = deriveChangeNote(this.hasher, parent, assetIdOfMint(note.mint), note.value - fill.paid);
    const memoNote = (derived: DerivedNote, mint: string): MemoNote => {
      const leaf = derived.value > 0n ? this.append(derived.hex.commitment) : undefined;
      return {
        commitment: derived.hex.commitment,
        inner_hash: derived.hex.innerHash,
        tree_id: 0,
        ...(leaf === undefined ? {} : { leaf_index: leaf }),
        amount: derived.value,
        mint,
      };
    };
    const memo: FillMemoPlaintext = {
      fill_quantity: 1n,
      quote_amount: 1n,
      clearing_price: 1n,
      received: memoNote(received, fill.receivedMint),
      ...(change.value === 0n ? {} : { change: memoNote(change, note.mint) }),
    };
    const event: OrderEvent = {
      channel: 'orders',
      seq: this.#nextSeq(),
      order_id: orderId,
      market_id: MARKET_ID,
      match_id: matchId,
      server_time_ms: 0,
      kind: fill.full ? 'fully_filled' : 'partially_filled',
      filled_quantity: 1n,
      ...(fill.full ? {} : { new_amount: 1n, new_note_amount: change.value }),
    };
    const message: FillMessage = {
      channel: 'fills',
      seq: this.#nextSeq(),
      order_id: orderId,
      market_id: MARKET_ID,
      match_id: matchId,
      batch_seq: matchId,
      server_time_ms: 0,
      memo: sealFillMemo(this.viewingPubkey, { orderId, matchId }, memo),
    };
    const next = fill.full
      ? undefined
      : {
          commitment: change.hex.commitment,
          innerHash: change.hex.innerHash,
          value: change.value,
          mint: note.mint,
        };
    return { event, message, memo, next };
  }

  /** An orders-channel event that ends `orderId` without a fill. */
  ended(
    orderId: string,
    kind: 'cancelled' | 'expired' | 'settlement_failed',
    lockExpirySlot?: bigint,
  ): OrderEvent {
    return {
      channel: 'orders',
      seq: this.#nextSeq(),
      order_id: orderId,
      market_id: MARKET_ID,
      server_time_ms: 0,
      kind,
      ...(kind === 'settlement_failed'
        ? { reason: 'note_locked', lock_expiry_slot: lockExpirySlot ?? 0n }
        : {}),
    };
  }
}
