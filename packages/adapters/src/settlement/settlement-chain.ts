import type {
  LockAccount,
  SettlementBatch,
  SettlementLeg,
  SettlementOutput,
  SettlementRecord,
  UnsignedSettlementBatch,
} from '@venue/protocol';

/**
 * The chain as the settlement pipeline sees it. The chain's messages and accounts are its wire
 * contract's (packages/protocol/src/chain), named here as the pipeline uses them; the adapters do
 * not depend on the chain simulator (the architecture test forbids it). A chain is in-process
 * (`settlementChainOf` in @venue/chain-sim) or remote (`RemoteSettlementChain`, ../chain); both sign
 * with the enclave's settlement key over the contract's canonical bytes.
 */

export type ChainSettlementOutput = SettlementOutput;

/** One input note of a batch and the notes it turns into (docs/chain-sim.md section 5). */
export type ChainSettlementLeg = SettlementLeg;

/** A batch before the settlement signer signs it (the signer is the chain port's own key). */
export type UnsignedChainBatch = Omit<UnsignedSettlementBatch, 'signer'>;

/** A batch signed by the settlement signer, with its transaction id (same bytes, same id). */
export type SignedChainBatch = SettlementBatch & { readonly tx_id: string };

export type ChainSettlementRecord = SettlementRecord;

export type ChainLock = LockAccount;

/**
 * The chain's answer to a lock request: placed, refused (a settlement failure reason, or a request
 * it could not judge), or, from a chain behind RPC, not known yet: the request is on its way and a
 * later beat's view shows the locks (or the next call returns the refusal).
 */
export type LockOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: string }
  | { readonly ok: 'pending' };

/** Chain entries the pipeline is about to read (docs/settlement.md section 9). */
export interface ChainKeys {
  readonly tags?: readonly string[];
  readonly txIds?: readonly string[];
  readonly markets?: readonly string[];
  readonly trees?: readonly number[];
}

/**
 * The chain as the pipeline reads and writes it. Reads are synchronous: an in-process chain answers
 * from its state, a remote one from a view it refreshes once per beat
 * (`RemoteSettlementChain`). Writes (`lockNotes`, `submit`) either apply at once or are queued, and
 * their outcome shows in a later beat. The pipeline never takes a missing entry for absence unless
 * `sees` vouches for it, so a stale or partial view delays settlement but never decides it.
 */
export interface SettlementChain {
  /**
   * Whether the reads below answer for these keys now. Absent or always true for an in-process
   * chain. A remote view holds a key once a refresh (or a write's reply) answered for it; asking
   * registers the keys for the next refresh, so the pipeline asks again on a later beat.
   */
  sees?(keys: ChainKeys): boolean;
  /**
   * Moves with each refresh of a remote view; absent for an in-process chain, whose reads are its
   * state. A group that waited on the chain (its notes unseen, its lock's reply not in) at one
   * version is asked again at the next, not on every turn in between.
   */
  readonly viewVersion?: number;
  /** The chain's current slot (a remote view: the slot its last refresh read first). */
  readonly slot: bigint;
  confirmationOf(slot: bigint): 'processed' | 'confirmed' | 'finalized';
  /** The batch number the market's next settlement must carry (gapless over landed batches). */
  nextBatchSeq(marketId: string): bigint;
  /** Locks notes for the market until their expiry slots, all or none, signed by the settlement signer. */
  lockNotes(marketId: string, locks: readonly { note_use_tag: string; expiry_slot: bigint }[]): LockOutcome;
  lock(noteUseTag: string): ChainLock | undefined;
  /** Slot at which the note-use tag was consumed, if it was. */
  consumedSlot(noteUseTag: string): bigint | undefined;
  /** Signs with the settlement signer; Ed25519 is deterministic, so re-signing gives the same tx_id. */
  sign(batch: UnsignedChainBatch): SignedChainBatch;
  /**
   * Present on a port that signs on a worker thread (a batch of a thousand legs is tens of
   * milliseconds of encoding and hashing): the same signed batch as `sign`, later.
   */
  readonly signLater?: (batch: UnsignedChainBatch) => Promise<SignedChainBatch>;
  /**
   * Submits a signed batch (a remote chain: queues it). Throws only when the request did not reach
   * the chain (retry it); the outcome is read back through `settlement`.
   */
  submit(batch: SignedChainBatch): void;
  settlement(txId: string): ChainSettlementRecord | undefined;
  /** The current root of a shard. */
  currentRoot(treeId: number): string;
  leafIndex(commitment: string): bigint | undefined;
  /** Slot ticks and reorgs: the pipeline's beat. Returns an unsubscribe function. */
  onBeat(listener: () => void): () => void;
  /**
   * Notes a withdraw or merge consumed, told as each lands. Only an in-process chain can; a remote
   * one is read on its beat instead (consumed-note-watch.ts).
   */
  onConsumed?(listener: (noteUseTags: readonly string[]) => void): () => void;
}
