import {
  AssertionError,
  assert,
  ChainError,
  type GovernanceValues,
  type LockAccount,
  type SettlementRecord,
  type SettlementView,
  settlementTxId,
  signLockRequest,
  signSettlementBatch,
  type TradingKey,
} from '@venue/protocol';
import { LOCK_REQUESTS_REMEMBERED_MAX, SETTLEMENT_VIEW_KEYS_PER_READ } from '../config/limits.ts';
import type {
  ChainKeys,
  LockOutcome,
  SettlementChain,
  SignedChainBatch,
  UnsignedChainBatch,
} from '../settlement/settlement-chain.ts';
import type { ChainWork } from '../workers/settlement-work.ts';
import type { ChainRpcClient } from './chain-rpc-client.ts';
import { pollEvery } from './poll-loop.ts';

/**
 * The venue's settlement port (the adapters' `SettlementChain`) over JSON-RPC, for a venue whose
 * chain runs elsewhere (`venue serve`). The pipeline reads synchronously, so this keeps a view:
 * once per beat `refresh()` reads, in one `getSettlementView` call (one slot), the slots, the
 * governance in force, every shard's root, and exactly the notes, transactions and markets the
 * pipeline asked about through `sees` since the last refresh. Writes (locks, batches) are queued
 * and sent one at a time, in order with the refreshes, so a view never predates a write that was
 * answered before it; a reply is merged into the view at once. Nothing here decides an outcome:
 * a timeout or a lost reply leaves the entry as it was, and the pipeline, which only believes what
 * the view holds, asks again at a later beat. Retries are safe because locks by the same market
 * are idempotent and a batch resent is the same transaction (same bytes, same tx_id).
 */

interface NoteView {
  readonly consumedSlot: bigint | undefined;
  readonly lock: LockAccount | undefined;
}

/** The leaves a landed batch appended, as its record lists them. */
type Leaves = NonNullable<SettlementRecord['appended']>;

interface View {
  readonly slot: bigint;
  readonly confirmedSlot: bigint;
  readonly finalizedSlot: bigint;
  readonly governance: GovernanceValues;
  readonly roots: readonly string[];
  readonly notes: Map<string, NoteView>;
  readonly settlements: Map<string, SettlementRecord | undefined>;
  readonly markets: Map<string, bigint | undefined>;
}

type LockRequestState = { readonly sent: true } | { readonly refused: string };

export interface RemoteSettlementChainOptions {
  /** Told once when the chain stops answering, and once when it answers again. */
  readonly onProblem?: (message: string) => void;
  /** Signs batches on the settlement worker (`signLater`); without it only `sign`, on this thread. */
  readonly work?: Pick<ChainWork, 'signBatch'>;
}

export class RemoteSettlementChain implements SettlementChain {
  readonly #rpc: ChainRpcClient;
  readonly #signer: TradingKey;
  readonly #options: RemoteSettlementChainOptions;
  #view: View | null = null;
  /** Keys the pipeline asked about since the last refresh began: the next refresh's question. */
  #asked = { tags: new Set<string>(), txIds: new Set<string>(), markets: new Set<string>() };
  /** Lock requests by content: sent and unanswered, or refused (reported once, then forgotten). */
  readonly #locks = new Map<string, LockRequestState>();
  /** Batches queued or on their way. */
  readonly #submitting = new Set<string>();
  readonly #listeners = new Set<() => void>();
  /** Every RPC, refreshes and writes alike, runs after the previous one settled. */
  #queue: Promise<unknown> = Promise.resolve();
  #failing = false;
  #version = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(rpc: ChainRpcClient, signer: TradingKey, options: RemoteSettlementChainOptions = {}) {
    this.#rpc = rpc;
    this.#signer = signer;
    this.#options = options;
    const work = options.work;
    if (work !== undefined) {
      this.signLater = async (batch) => {
        const unsigned = { ...batch, signer: signer.publicKey };
        const { signature, tx_id } = await work.signBatch({ batch: unsigned, privateKey: signer.privateKey });
        return { ...unsigned, signature, tx_id };
      };
    }
  }

  readonly signLater?: (batch: UnsignedChainBatch) => Promise<SignedChainBatch>;

  /**
   * Counts refreshes. A write's reply is merged into the view when it comes, but the version moves
   * only with the next refresh, which runs after it (one queue): otherwise each of a backlog's lock
   * replies would send every waiting group back to ask, which is what the version is there to stop.
   */
  get viewVersion(): number {
    return this.#version;
  }

  // ---- the beat ----

  /**
   * Reads the view for the keys asked since the last refresh, then runs every beat listener (the
   * pipeline's step, the governance watch). False, with the view and no beat unchanged, when the
   * chain did not answer.
   */
  refresh(): Promise<boolean> {
    return this.#enqueue(async () => {
      const asked = this.#asked;
      this.#asked = { tags: new Set(), txIds: new Set(), markets: new Set() };
      let view: View;
      try {
        view = await this.#read(asked);
      } catch (error) {
        // What was asked is asked again: the pipeline keeps asking until a view answers it.
        for (const tag of asked.tags) this.#asked.tags.add(tag);
        for (const id of asked.txIds) this.#asked.txIds.add(id);
        for (const id of asked.markets) this.#asked.markets.add(id);
        this.#problem(`chain RPC ${this.#rpc.url} failed (${(error as Error).message}); settlement waits`);
        return false;
      }
      this.#view = view;
      this.#version += 1;
      if (this.#failing) this.#options.onProblem?.(`chain RPC ${this.#rpc.url} answers again`);
      this.#failing = false;
      for (const listener of this.#listeners) listener();
      return true;
    });
  }

  /** Refreshes every `pollMs` until `stop()`. */
  start(pollMs: number): void {
    assert(this.#timer === undefined, 'the remote settlement chain is already started');
    this.#timer = pollEvery(pollMs, () => this.refresh());
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Resolves once every queued request has been answered or has failed (tests, shutdown). */
  async idle(): Promise<void> {
    let seen: Promise<unknown>;
    do {
      seen = this.#queue;
      await seen;
    } while (seen !== this.#queue);
  }

  onBeat(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // ---- reads (the last view) ----

  sees(keys: ChainKeys): boolean {
    for (const tag of keys.tags ?? []) this.#asked.tags.add(tag);
    for (const id of keys.txIds ?? []) this.#asked.txIds.add(id);
    for (const id of keys.markets ?? []) this.#asked.markets.add(id);
    const view = this.#view;
    if (view === null) return false;
    return (
      (keys.tags ?? []).every((tag) => view.notes.has(tag)) &&
      (keys.txIds ?? []).every((id) => view.settlements.has(id)) &&
      (keys.markets ?? []).every((id) => view.markets.has(id)) &&
      (keys.trees ?? []).every((treeId) => treeId < view.roots.length)
    );
  }

  get slot(): bigint {
    return this.#view?.slot ?? 0n;
  }

  /** Same levels as the chain's own `confirmationOf`, from the slots the view read. */
  confirmationOf(slot: bigint): 'processed' | 'confirmed' | 'finalized' {
    const view = this.#required();
    if (slot <= view.finalizedSlot) return 'finalized';
    return slot <= view.confirmedSlot ? 'confirmed' : 'processed';
  }

  /** The governance in force at the view's slot (the governance watch's source). */
  governanceValues(): GovernanceValues {
    return this.#required().governance;
  }

  finalizedSlot(): bigint {
    return this.#view?.finalizedSlot ?? 0n;
  }

  /** A market without an account on the chain answers 0: its batch fails there, with the reason. */
  nextBatchSeq(marketId: string): bigint {
    return this.#required().markets.get(marketId) ?? 0n;
  }

  lock(noteUseTag: string) {
    return this.#required().notes.get(noteUseTag)?.lock;
  }

  consumedSlot(noteUseTag: string): bigint | undefined {
    return this.#required().notes.get(noteUseTag)?.consumedSlot;
  }

  settlement(txId: string): SettlementRecord | undefined {
    return this.#required().settlements.get(txId);
  }

  currentRoot(treeId: number): string {
    const root = this.#required().roots[treeId];
    assert(root !== undefined, `no shard ${treeId} on the chain`);
    return root;
  }

  /** From the settlement records the view holds (the pipeline reads leaves of its own batches). */
  leafIndex(commitment: string): bigint | undefined {
    for (const record of this.#required().settlements.values()) {
      const leaf = record?.appended?.find((entry) => entry.commitment === commitment);
      if (leaf !== undefined) return leaf.leaf_index;
    }
    return undefined;
  }

  // ---- writes (queued) ----

  /**
   * Queues the lock request and answers 'pending'. The reply puts the locks into the view (so the
   * pipeline finds them held and does not ask again); a refusal is returned by the next call for
   * the same request; a lost reply forgets the request, so the next call sends it again.
   */
  lockNotes(marketId: string, locks: readonly { note_use_tag: string; expiry_slot: bigint }[]): LockOutcome {
    const id = `${marketId}|${locks.map((l) => `${l.note_use_tag}:${l.expiry_slot}`).join(',')}`;
    const known = this.#locks.get(id);
    if (known !== undefined && 'refused' in known) {
      this.#locks.delete(id);
      return { ok: false, reason: known.refused };
    }
    if (known !== undefined) return { ok: 'pending' };
    this.#locks.set(id, { sent: true });
    const request = signLockRequest(
      { market_id: marketId, locks, signer: this.#signer.publicKey },
      this.#signer,
    );
    void this.#enqueue(async () => {
      try {
        const reply = await this.#rpc.request('lockNotes', request);
        this.#locks.delete(id);
        // Just locked means not consumed: lockNotes refuses consumed notes.
        for (const lock of reply.locks)
          this.#view?.notes.set(lock.note_use_tag, { consumedSlot: undefined, lock });
      } catch (error) {
        // A bug of ours is not a lost request: it crashes (the queue's task rejects, unhandled).
        if (error instanceof AssertionError) throw error;
        this.#locks.delete(id);
        if (error instanceof ChainError) {
          this.#locks.set(id, { refused: error.reason });
          for (const stale of this.#locks.keys()) {
            if (this.#locks.size <= LOCK_REQUESTS_REMEMBERED_MAX) break;
            this.#locks.delete(stale);
          }
        }
      }
    });
    return { ok: 'pending' };
  }

  /** Ed25519 is deterministic: the same batch signs to the same bytes and the same tx_id. */
  sign(batch: UnsignedChainBatch): SignedChainBatch {
    const signed = signSettlementBatch({ ...batch, signer: this.#signer.publicKey }, this.#signer);
    return { ...signed, tx_id: settlementTxId(signed) };
  }

  /** Queues the batch unless it is already on its way; the reply's record goes into the view. */
  submit(batch: SignedChainBatch): void {
    const { tx_id: txId, ...signed } = batch;
    if (this.#submitting.has(txId)) return;
    this.#submitting.add(txId);
    void this.#enqueue(async () => {
      try {
        const record = await this.#rpc.request('submitSettlement', { batch: signed });
        this.#view?.settlements.set(txId, record);
      } catch (error) {
        if (error instanceof AssertionError) throw error;
        // A refusal of the request itself (not a settlement outcome) is a fault of ours: say it.
        // The batch stays unknown, is resent, and fails at its deadline if the refusal holds.
        if (error instanceof ChainError)
          this.#options.onProblem?.(`the chain refused settlement batch ${txId}: ${error.message}`);
      } finally {
        this.#submitting.delete(txId);
      }
    });
  }

  // ---- internals ----

  #required(): View {
    assert(this.#view !== null, 'read the remote chain only after a refresh (sees() says when)');
    return this.#view;
  }

  #problem(message: string): void {
    if (!this.#failing) this.#options.onProblem?.(message);
    this.#failing = true;
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => {});
    return run;
  }

  /**
   * One call when the keys fit, else one per chunk; the view's slots are the first call's, and
   * every later call reads at that slot or after, so what the view holds is never older than its slot.
   */
  async #read(asked: { tags: Set<string>; txIds: Set<string>; markets: Set<string> }): Promise<View> {
    // A batch landed and read in full is asked as held: its record comes back without the leaves,
    // which are taken from the record already read as long as it landed in the same slot (D129).
    const held = new Map<string, { slot: bigint | undefined; appended: Leaves }>();
    for (const id of asked.txIds) {
      const known = this.#view?.settlements.get(id);
      if (known?.state === 'landed' && known.appended !== undefined)
        held.set(id, { slot: known.included_slot, appended: known.appended });
    }
    const keys = [
      ...[...asked.markets].map((id) => ['market_ids', id] as const),
      ...[...asked.txIds].map((id) => [held.has(id) ? 'held_tx_ids' : 'tx_ids', id] as const),
      ...[...asked.tags].map((tag) => ['tags', tag] as const),
    ];
    let first: SettlementView | null = null;
    const notes = new Map<string, NoteView>();
    const settlements = new Map<string, SettlementRecord | undefined>();
    const markets = new Map<string, bigint | undefined>();
    for (let from = 0; from === 0 || from < keys.length; from += SETTLEMENT_VIEW_KEYS_PER_READ) {
      const chunk = keys.slice(from, from + SETTLEMENT_VIEW_KEYS_PER_READ);
      const params = {
        tags: [] as string[],
        tx_ids: [] as string[],
        held_tx_ids: [] as string[],
        market_ids: [] as string[],
      };
      for (const [list, value] of chunk) params[list].push(value);
      const reply = await this.#rpc.request('getSettlementView', params);
      first ??= reply;
      for (const note of reply.notes)
        notes.set(note.note_use_tag, {
          consumedSlot: note.consumed_slot ?? undefined,
          lock: note.lock ?? undefined,
        });
      for (const entry of reply.settlements) settlements.set(entry.tx_id, entry.record ?? undefined);
      for (const entry of reply.markets) markets.set(entry.market_id, entry.next_batch_seq ?? undefined);
    }
    assert(first !== null, 'a refresh reads at least once');
    // A held batch that landed again in another slot (a reorg, then a new inclusion) appended other
    // leaves: read it in full now, at this slot or after, so no view holds a landing without them.
    const again: string[] = [];
    for (const [id, known] of held) {
      const record = settlements.get(id);
      if (record?.state !== 'landed') continue;
      if (record.included_slot === known.slot) settlements.set(id, { ...record, appended: known.appended });
      else again.push(id);
    }
    for (let from = 0; from < again.length; from += SETTLEMENT_VIEW_KEYS_PER_READ) {
      const reply = await this.#rpc.request('getSettlementView', {
        tx_ids: again.slice(from, from + SETTLEMENT_VIEW_KEYS_PER_READ),
      });
      for (const entry of reply.settlements) settlements.set(entry.tx_id, entry.record ?? undefined);
    }
    return {
      slot: first.slot,
      confirmedSlot: first.confirmed_slot,
      finalizedSlot: first.finalized_slot,
      governance: first.governance,
      roots: first.roots,
      notes,
      settlements,
      markets,
    };
  }
}
