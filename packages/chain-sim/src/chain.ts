import { randomBytes } from 'node:crypto';
import { assetIdOfMint, fieldToHex, loadNoteHasher, type NoteHasher } from '@venue/notes';
import {
  assert,
  checkChainMessage,
  DepositRequestSchema,
  GovernanceRequestSchema,
  LockRequestSchema,
  MarketParamsSchema,
  MergeRequestSchema,
  MintAccountSchema,
  OracleUpdateRequestSchema,
  SETTLEMENT_FAILURE_REASONS,
  SettlementBatchSchema,
  type SettlementFailureReason,
  sha256,
  verifyDigest,
  WithdrawRequestSchema,
} from '@venue/protocol';
import { base58, HEX32 } from './bytes.ts';
import { manualSlots, type SlotDriver, wallSlots } from './clock.ts';
import { reject } from './errors.ts';
import { FaultQueue } from './faults.ts';
import { type DisclosedOpening, Ledger, type LedgerSnapshot } from './ledger.ts';
import {
  ADVANCE_SLOTS_MAX,
  type ChainConfig,
  CONFIRMATION_DEPTH_DEFAULT,
  checkChainLimitRelations,
  checkConfig,
  FINALITY_DEPTH_DEFAULT,
  GOVERNANCE_ACTIONS_MAX,
  LOCK_SLOTS_MAX,
  MARKETS_MAX,
  MINTS_MAX,
  ORACLES_MAX,
  PENDING_TXS_MAX,
  ROOT_WINDOW_DEFAULT,
  SHARDS_DEFAULT,
  SLOT_MS_DEFAULT,
} from './limits.ts';
import {
  loadMatchProofCheck,
  type MatchProofCheck,
  type MatchProofMode,
  STAND_IN_MATCH_PROOFS,
} from './match-proofs.ts';
import { digestOf, governanceBytes, lockBytes, settlementTxId } from './messages.ts';
import { deposit, merge, withdraw } from './note-actions.ts';
import { fieldOf, isLive } from './note-checks.ts';
import { applySettlement, checkSettlement } from './settle.ts';
import { TxLog } from './tx-log.ts';
import type {
  ChainEvent,
  ChainInfo,
  ConfirmationLevel,
  ConsumedEntry,
  DepositRequest,
  GovernanceRequest,
  GovernanceValues,
  GovernanceView,
  Hex32,
  LockAccount,
  LockRequest,
  MarketAccount,
  MarketParams,
  MergeReceipt,
  MergeRequest,
  MintAccount,
  NoteReceipt,
  OracleAccount,
  OracleUpdateRequest,
  RootEntry,
  SettlementBatch,
  SettlementRecord,
  SlotInfo,
  WithdrawReceipt,
  WithdrawRequest,
} from './types.ts';

export interface ChainOptions extends Partial<ChainConfig> {
  /** 'manual' (default): slots move only on advance(). 'wall': one slot per slotMs once started. */
  readonly clock?: 'manual' | 'wall';
  /** Genesis governance. Without it no settlement signer is accepted until governance sets one. */
  readonly governance?: Partial<GovernanceValues> & { readonly authority?: Hex32 };
  /**
   * How every proof is checked, settlement and spend alike (docs/chain-sim.md sections 6 and 10):
   * 'groth16' (default) with the pinned VALID_MATCH and VALID_SPEND keys, 'stand-in' with notes'
   * stand-in proofs (tests and simulator seeds only). The name stays from when settlement was the
   * only proof.
   */
  readonly matchProofs?: MatchProofMode;
  /**
   * This chain's identity (32 hex characters), reported by info(). Default: drawn at random, so
   * two boots of a dev chain never share one and a wallet can tell that its chain was reset.
   */
  readonly genesisId?: string;
}

const NO_KEY = '00'.repeat(32);

/**
 * Creates a simulator: loads the Poseidon WebAssembly and, for a 'groth16' chain, the pinned
 * VALID_MATCH verification key (each once per process), so that no batch waits on a load.
 */
export async function createChainSimulator(options: ChainOptions = {}): Promise<ChainSimulator> {
  const [hasher, proofs] = await Promise.all([
    loadNoteHasher(),
    loadMatchProofCheck(options.matchProofs ?? 'groth16'),
  ]);
  return new ChainSimulator(hasher, options, proofs);
}

/**
 * The chain simulator (docs/chain-sim.md). One instance is one chain: a ledger that every action
 * changes within the current slot, the history of non-final slots that makes a reorg exact, the
 * settlement transaction log, and the armed faults. Everything is synchronous and deterministic
 * given the calls made; only the wall driver reads time.
 */
export class ChainSimulator {
  readonly config: ChainConfig;
  private readonly ledger: Ledger;
  private readonly driver: SlotDriver;
  private readonly txs = new TxLog();
  private readonly pending: { batch: SettlementBatch; tx_id: Hex32; due_slot: bigint }[] = [];
  private readonly faultQueue = new FaultQueue();
  private readonly listeners = new Set<(event: ChainEvent) => void>();
  /** Start-of-slot snapshots of the slots (not yet final) in which something changed, oldest first. */
  private history: LedgerSnapshot[] = [];
  private currentSlot = 0n;
  private readonly authority: Hex32;
  /** The mode settlements are checked in; its check is `proofs`, given or built at construction. */
  readonly matchProofs: MatchProofMode;
  private readonly proofs: MatchProofCheck | undefined;
  /** Drawn when the chain starts from genesis (ChainOptions.genesisId). */
  readonly genesisId: string;
  /**
   * Token metadata by mint. Written once at set-up, like a real chain's mint accounts, and kept
   * outside the ledger: a reorg does not unmake a token, and the state hash covers value only.
   */
  private readonly mintAccounts = new Map<string, MintAccount>();

  /**
   * Prefer createChainSimulator. Built directly, a 'groth16' chain needs `proofs` (from
   * loadMatchProofCheck('groth16')) before it can land a settlement; a 'stand-in' chain has its check.
   */
  constructor(
    readonly hasher: NoteHasher,
    options: ChainOptions = {},
    proofs?: MatchProofCheck,
  ) {
    this.matchProofs = options.matchProofs ?? 'groth16';
    assert(
      proofs === undefined || proofs.mode === this.matchProofs,
      `the proof check given is '${proofs?.mode}', the chain's mode '${this.matchProofs}'`,
    );
    this.proofs = proofs ?? (this.matchProofs === 'stand-in' ? STAND_IN_MATCH_PROOFS : undefined);
    checkChainLimitRelations();
    this.genesisId = options.genesisId ?? randomBytes(16).toString('hex');
    assert(/^[0-9a-f]{32}$/.test(this.genesisId), 'genesisId: 32 lowercase hex characters');
    this.config = checkConfig({
      shards: options.shards ?? SHARDS_DEFAULT,
      rootWindow: options.rootWindow ?? ROOT_WINDOW_DEFAULT,
      finalityDepth: options.finalityDepth ?? FINALITY_DEPTH_DEFAULT,
      confirmationDepth: options.confirmationDepth ?? CONFIRMATION_DEPTH_DEFAULT,
      slotMs: options.slotMs ?? SLOT_MS_DEFAULT,
    });
    const genesis = {
      measurement: genesisKey(options.governance?.measurement, 'governance.measurement'),
      settlement_signer: genesisKey(options.governance?.settlement_signer, 'governance.settlement_signer'),
    };
    this.authority = genesisKey(options.governance?.authority, 'governance.authority');
    this.ledger = new Ledger(hasher, this.config.shards, this.config.rootWindow, genesis);
    this.driver = options.clock === 'wall' ? wallSlots(this.config.slotMs) : manualSlots();
  }

  // ---- slots ------------------------------------------------------------------------------------

  /** Starts the wall driver (no-op for a manual chain). */
  start(): void {
    this.driver.start(() => this.advance(1));
  }

  stop(): void {
    this.driver.stop();
  }

  get slot(): bigint {
    return this.currentSlot;
  }

  slotInfo(): SlotInfo {
    return {
      slot: this.currentSlot,
      confirmed_slot: this.levelSlot(this.config.confirmationDepth),
      finalized_slot: this.finalizedSlot(),
    };
  }

  finalizedSlot(): bigint {
    return this.levelSlot(this.config.finalityDepth);
  }

  private levelSlot(depth: number): bigint {
    const slot = this.currentSlot - BigInt(depth);
    return slot < 0n ? 0n : slot;
  }

  /** How settled an effect included at `slot` is. */
  confirmationOf(slot: bigint): ConfirmationLevel {
    const age = this.currentSlot - slot;
    if (age >= BigInt(this.config.finalityDepth)) return 'finalized';
    return age >= BigInt(this.config.confirmationDepth) ? 'confirmed' : 'processed';
  }

  /**
   * Produces `count` slots (a stalled chain swallows them). Each new slot first lands the delayed
   * settlements due by then. Returns the slot reached.
   */
  advance(count = 1): bigint {
    assert(
      Number.isInteger(count) && count >= 0 && count <= ADVANCE_SLOTS_MAX,
      `advance: 0 to ${ADVANCE_SLOTS_MAX} slots`,
    );
    for (let i = 0; i < count; i++) {
      if (this.faultQueue.stallTicks > 0) {
        this.faultQueue.stallTicks -= 1;
        continue;
      }
      this.currentSlot += 1n;
      this.pruneHistory();
      this.landDueSettlements();
      this.emit({ kind: 'slot', slot: this.currentSlot });
    }
    return this.currentSlot;
  }

  onEvent(listener: (event: ChainEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: ChainEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /** Called before any ledger change: remembers the ledger as the current slot found it. */
  private beginWrite(): void {
    if (this.history.at(-1)?.slot !== this.currentSlot)
      this.history.push(this.ledger.snapshot(this.currentSlot));
  }

  /** A snapshot taken at the start of slot s serves rollbacks to s-1, allowed while s-1 >= finalized. */
  private pruneHistory(): void {
    const finalized = this.finalizedSlot();
    this.history = this.history.filter((snapshot) => snapshot.slot > finalized);
  }

  // ---- reorgs -----------------------------------------------------------------------------------

  /**
   * Rolls the ledger back to its state at the end of `slot` (a reorg onto a fork that skipped the
   * later slots). Only slots that are not final can be rolled back. The slot number does not go
   * back; settlements that had landed in the dropped slots are forgotten and returned.
   */
  rollbackTo(slot: bigint): Hex32[] {
    if (slot < this.finalizedSlot() || slot > this.currentSlot) {
      reject(
        'bad_request',
        `rollback target ${slot} must be from the finalized slot ${this.finalizedSlot()} to ${this.currentSlot}`,
      );
    }
    const index = this.history.findIndex((snapshot) => snapshot.slot > slot);
    const dropped = this.txs.landedAfter(slot).map((record) => record.tx_id);
    if (index >= 0) {
      const snapshot = this.history[index];
      assert(snapshot !== undefined, 'the snapshot found exists');
      this.ledger.restore(snapshot);
      this.history = this.history.slice(0, index);
    }
    for (const txId of dropped) this.txs.drop(txId);
    this.emit({ kind: 'reorg', to_slot: slot, dropped });
    return dropped;
  }

  /** Rolls back the last `depth` slots: rollbackTo(slot - depth). */
  reorg(depth: bigint): Hex32[] {
    return this.rollbackTo(this.currentSlot - depth);
  }

  stateHash(): string {
    return this.ledger.stateHash();
  }

  // ---- notes ------------------------------------------------------------------------------------

  deposit(request: DepositRequest): NoteReceipt {
    const checked = checkChainMessage(DepositRequestSchema, request, 'deposit');
    this.beginWrite();
    return deposit(this.ledger, this.hasher, checked, this.currentSlot);
  }

  withdraw(request: WithdrawRequest): WithdrawReceipt {
    const checked = checkChainMessage(WithdrawRequestSchema, request, 'withdraw');
    const receipt = withdraw(this.ledger, this.spendProofs(), checked, this.currentSlotForWrite());
    this.emit({ kind: 'consumed', note_use_tags: [receipt.note_use_tag], slot: this.currentSlot });
    return receipt;
  }

  merge(request: MergeRequest): MergeReceipt {
    const checked = checkChainMessage(MergeRequestSchema, request, 'merge');
    const receipt = merge(this.ledger, this.spendProofs(), checked, this.currentSlotForWrite());
    this.emit({ kind: 'consumed', note_use_tags: receipt.consumed, slot: this.currentSlot });
    return receipt;
  }

  /** The proof check of a withdraw or merge: the chain's one proof mode (section 10). */
  private spendProofs(): MatchProofCheck {
    assert(
      this.proofs !== undefined,
      "a 'groth16' chain checks spends only with its verification keys: build it with createChainSimulator",
    );
    return this.proofs;
  }

  /** Opens the current slot for writing (its snapshot taken) and returns it. */
  private currentSlotForWrite(): bigint {
    this.beginWrite();
    return this.currentSlot;
  }

  consumedEntry(noteUseTag: Hex32): ConsumedEntry | undefined {
    return this.ledger.consumed.get(noteUseTag);
  }

  // ---- locks ------------------------------------------------------------------------------------

  /**
   * Locks notes for a market's settlement (spec 3.2 venue-reserved -> on-chain locked), all or
   * none. Signed by the settlement signer. A market may re-lock its own notes (a new expiry).
   */
  lockNotes(request: LockRequest): LockAccount[] {
    const checked = checkChainMessage(LockRequestSchema, request, 'lock');
    const { signature, ...unsigned } = checked;
    if (
      checked.signer !== this.governanceValues().settlement_signer ||
      !verifyDigest(checked.signer, digestOf(lockBytes(unsigned)), signature)
    ) {
      reject('signer_rejected', 'locks are placed by the settlement signer of the final governance');
    }
    this.market(checked.market_id);
    const slot = this.currentSlot;
    const tags = new Set<Hex32>();
    for (const { note_use_tag: tag, expiry_slot: expiry } of checked.locks) {
      if (tags.has(tag)) reject('bad_request', `locks: ${tag} appears twice`);
      tags.add(tag);
      if (expiry <= slot || expiry > slot + LOCK_SLOTS_MAX) {
        reject(
          'bad_request',
          `expiry_slot ${expiry} must be after the current slot ${slot} and within ${LOCK_SLOTS_MAX} slots`,
        );
      }
      if (this.ledger.consumed.has(tag)) reject('note_consumed', `note ${tag} was already consumed`);
      const lock = this.ledger.locks.get(tag);
      if (isLive(lock, slot) && lock.market_id !== checked.market_id) {
        reject('note_locked', `note ${tag} is locked by another market through slot ${lock.expiry_slot}`);
      }
    }
    this.beginWrite();
    return checked.locks.map(({ note_use_tag, expiry_slot }) => {
      const lock = { note_use_tag, market_id: checked.market_id, expiry_slot, slot, reverted: false };
      this.ledger.locks.set(note_use_tag, lock);
      return lock;
    });
  }

  lock(noteUseTag: Hex32): LockAccount | undefined {
    return this.ledger.locks.get(noteUseTag);
  }

  /** Whether a live lock blocks the note now. */
  isLocked(noteUseTag: Hex32): boolean {
    return isLive(this.lock(noteUseTag), this.currentSlot);
  }

  // ---- settlement -------------------------------------------------------------------------------

  /**
   * Submits a signed batch. It lands in the current slot (or later, under a delay fault) and is
   * either applied whole or fails with one definitive reason. Submitting the same signed batch
   * again returns the existing record (same tx_id).
   */
  submitSettlement(batch: SettlementBatch): SettlementRecord {
    const checked = checkChainMessage(SettlementBatchSchema, batch, 'batch');
    // Each match has two legs, and every leg takes part in at least one match.
    if (checked.legs.length > 2 * checked.match_count)
      reject(
        'bad_request',
        `legs: ${checked.legs.length} legs cannot come from ${checked.match_count} matches`,
      );
    const txId = settlementTxId(checked);
    const known = this.txs.get(txId);
    if (known !== undefined) return known;
    const record: SettlementRecord = {
      tx_id: txId,
      market_id: checked.market_id,
      batch_seq: checked.batch_seq,
      match_count: checked.match_count,
      submitted_slot: this.currentSlot,
      state: 'pending',
    };
    const delay = this.faultQueue.take('delay', checked.market_id);
    if (delay !== undefined) {
      if (this.pending.length >= PENDING_TXS_MAX) reject('bad_request', 'too many delayed settlements');
      this.txs.put(record);
      this.pending.push({ batch: checked, tx_id: txId, due_slot: this.currentSlot + delay.slots });
      return record;
    }
    return this.land(checked, record);
  }

  private land(batch: SettlementBatch, record: SettlementRecord): SettlementRecord {
    const slot = this.currentSlot;
    const fault = this.faultQueue.take('fail', batch.market_id);
    const proofs = this.proofs;
    assert(
      proofs !== undefined,
      "a 'groth16' chain lands settlements only with its verification key: build it with createChainSimulator",
    );
    const check =
      fault === undefined
        ? checkSettlement(
            {
              ledger: this.ledger,
              hasher: this.hasher,
              slot,
              signer: this.governanceValues().settlement_signer,
              proofs,
            },
            batch,
          )
        : { ok: false as const, reason: fault.reason, message: `injected failure: ${fault.reason}` };
    let landed: SettlementRecord;
    if (check.ok) {
      this.beginWrite();
      const appended = applySettlement(this.ledger, check.plan, slot).map((leaf) => ({
        tree_id: leaf.tree_id,
        leaf_index: leaf.leaf_index,
        commitment: leaf.commitment,
      }));
      landed = { ...record, state: 'landed', included_slot: slot, appended };
    } else {
      landed = {
        ...record,
        state: 'failed',
        failed_slot: slot,
        reason: check.reason,
        message: check.message,
      };
    }
    this.txs.put(landed);
    this.emit({ kind: 'settlement', record: landed });
    return landed;
  }

  private landDueSettlements(): void {
    const due = this.pending.filter((tx) => tx.due_slot <= this.currentSlot);
    if (due.length === 0) return;
    this.pending.splice(
      0,
      this.pending.length,
      ...this.pending.filter((tx) => tx.due_slot > this.currentSlot),
    );
    for (const tx of due) {
      const record = this.txs.get(tx.tx_id);
      if (record !== undefined && record.state === 'pending') this.land(tx.batch, record);
    }
  }

  settlement(txId: Hex32): SettlementRecord | undefined {
    return this.txs.get(txId);
  }

  settlementForBatch(marketId: string, batchSeq: bigint): SettlementRecord | undefined {
    return this.txs.forBatch(marketId, batchSeq);
  }

  // ---- markets and oracles ----------------------------------------------------------------------

  /** Creates a market configuration account (a simulator admin action, unsigned). */
  createMarket(params: MarketParams): MarketAccount {
    const checked = checkChainMessage(MarketParamsSchema, params, 'market');
    const marketId = checked.market_id ?? accountAddress('market', checked.symbol);
    if (this.ledger.markets.has(marketId)) reject('conflict', `a market account exists at ${marketId}`);
    if (this.ledger.markets.size >= MARKETS_MAX) reject('bad_request', `at most ${MARKETS_MAX} markets`);
    const oracle = checked.oracle;
    if (!this.ledger.oracles.has(oracle)) reject('not_found', `no oracle account at ${oracle}`);
    const market: MarketAccount = {
      market_id: marketId,
      symbol: checked.symbol,
      base_mint: checked.base_mint,
      quote_mint: checked.quote_mint,
      tick_size: checked.tick_size,
      min_size: checked.min_size,
      price_scale: checked.price_scale,
      oracle,
      next_batch_seq: 0n,
    };
    if (market.base_mint === market.quote_mint) reject('bad_request', 'base_mint and quote_mint differ');
    this.beginWrite();
    for (const mint of [market.base_mint, market.quote_mint])
      this.ledger.mints.set(fieldToHex(assetIdOfMint(mint)), mint);
    this.ledger.markets.set(marketId, market);
    return market;
  }

  /** Records a mint's symbol and decimals (a simulator admin action, unsigned; once per mint). */
  createMint(params: MintAccount): MintAccount {
    const checked = checkChainMessage(MintAccountSchema, params, 'mint');
    if (this.mintAccounts.has(checked.mint)) reject('conflict', `mint ${checked.mint} is already described`);
    if (this.mintAccounts.size >= MINTS_MAX) reject('bad_request', `at most ${MINTS_MAX} mints`);
    const account = { mint: checked.mint, symbol: checked.symbol, decimals: checked.decimals };
    this.mintAccounts.set(account.mint, account);
    return account;
  }

  /** Every described mint, in the order they were created. */
  mints(): MintAccount[] {
    return [...this.mintAccounts.values()];
  }

  market(marketId: string): MarketAccount {
    const market = this.ledger.markets.get(marketId);
    if (market === undefined) reject('not_found', `no market account at ${marketId}`);
    return market;
  }

  markets(): MarketAccount[] {
    return [...this.ledger.markets.values()];
  }

  /** Creates or updates an oracle account; the update is stamped with the current slot. */
  updateOracle(update: OracleUpdateRequest): OracleAccount {
    const { address, price, confidence } = checkChainMessage(OracleUpdateRequestSchema, update, 'oracle');
    if (!this.ledger.oracles.has(address) && this.ledger.oracles.size >= ORACLES_MAX) {
      reject('bad_request', `at most ${ORACLES_MAX} oracle accounts`);
    }
    const oracle = { address, price, confidence, publish_slot: this.currentSlot };
    this.beginWrite();
    this.ledger.oracles.set(address, oracle);
    return oracle;
  }

  oracle(address: string): OracleAccount {
    const oracle = this.ledger.oracles.get(address);
    if (oracle === undefined) reject('not_found', `no oracle account at ${address}`);
    return oracle;
  }

  // ---- governance -------------------------------------------------------------------------------

  /** Values in force: the newest action that is final (genesis always is). */
  governanceValues(): GovernanceValues {
    const final = this.ledger.governance.filter(
      (action) => action.sequence === 0n || this.confirmationOf(action.slot) === 'finalized',
    );
    const newest = final.at(-1);
    assert(newest !== undefined, 'genesis governance is always final');
    return { measurement: newest.measurement, settlement_signer: newest.settlement_signer };
  }

  governance(): GovernanceView {
    const effective = this.governanceValues();
    const last = this.ledger.governance.at(-1);
    assert(last !== undefined, 'genesis governance exists');
    return {
      authority: this.authority,
      effective,
      pending: this.ledger.governance.filter(
        (a) => a.sequence > 0n && this.confirmationOf(a.slot) !== 'finalized',
      ),
      next_sequence: last.sequence + 1n,
    };
  }

  /** Includes a governance action; it takes effect once its slot is final. */
  proposeGovernance(request: GovernanceRequest): GovernanceView {
    const checked = checkChainMessage(GovernanceRequestSchema, request, 'governance');
    const { signature, ...values } = checked;
    if (
      this.authority === NO_KEY ||
      !verifyDigest(this.authority, digestOf(governanceBytes(values)), signature)
    ) {
      reject('unauthorized', 'governance actions are signed by the governance authority');
    }
    const next = this.governance().next_sequence;
    if (checked.sequence !== next)
      reject('conflict', `sequence ${checked.sequence}: the next governance action is ${next}`);
    if (this.ledger.governance.length >= GOVERNANCE_ACTIONS_MAX)
      reject('bad_request', 'too many governance actions');
    this.beginWrite();
    this.ledger.governance = [
      ...this.ledger.governance,
      {
        sequence: checked.sequence,
        measurement: values.measurement,
        settlement_signer: values.settlement_signer,
        slot: this.currentSlot,
      },
    ];
    return this.governance();
  }

  // ---- trees ------------------------------------------------------------------------------------

  get shardCount(): number {
    return this.ledger.shards.length;
  }

  rootWindow(treeId: number): readonly RootEntry[] {
    return this.ledger.shard(treeId).roots;
  }

  currentRoot(treeId: number): RootEntry {
    const entry = this.rootWindow(treeId).at(-1);
    assert(entry !== undefined, 'a shard always has its current root in the window');
    return entry;
  }

  leafCount(treeId: number): number {
    return this.ledger.shard(treeId).leaves.length;
  }

  leafAt(treeId: number, index: number): Hex32 {
    return fieldToHex(this.ledger.shard(treeId).tree.leaf(index));
  }

  /** Where a commitment sits, if it is a leaf. */
  locate(commitment: Hex32): { tree_id: number; leaf_index: bigint } | undefined {
    const note = this.ledger.notes.get(commitment);
    return note === undefined ? undefined : { tree_id: note.tree_id, leaf_index: note.leaf_index };
  }

  path(treeId: number, index: number) {
    return this.ledger.shard(treeId).tree.path(index);
  }

  // ---- faults -----------------------------------------------------------------------------------

  /** Fault injection for tests (docs/chain-sim.md section 7). */
  readonly faults = {
    /** The next settlement (of the market, or any) fails with this reason, checks or not. */
    failNextSettlement: (reason: SettlementFailureReason, marketId?: string): void => {
      if (!(SETTLEMENT_FAILURE_REASONS as readonly string[]).includes(reason))
        reject('bad_request', `unknown reason ${reason}`);
      this.faultQueue.arm(
        marketId === undefined ? { kind: 'fail', reason } : { kind: 'fail', reason, market_id: marketId },
      );
    },
    /** The next settlement submitted lands `slots` slots later instead of at once. */
    delayNextSettlement: (slots: bigint, marketId?: string): void => {
      if (slots < 1n || slots > LOCK_SLOTS_MAX) reject('bad_request', `delay: 1 to ${LOCK_SLOTS_MAX} slots`);
      this.faultQueue.arm(
        marketId === undefined ? { kind: 'delay', slots } : { kind: 'delay', slots, market_id: marketId },
      );
    },
    /** Drops a root from a shard's window, as if it had aged out. */
    expireRoot: (treeId: number, root: Hex32): void => {
      if (!HEX32.test(root)) reject('bad_request', 'root: expected 32 bytes of hex');
      this.beginWrite();
      this.ledger.dropRoot(treeId, root);
    },
    /** Reverts a lock: it stops blocking, and a settlement relying on it fails with lock_reverted. */
    revertLock: (noteUseTag: Hex32): void => {
      const lock = this.lock(noteUseTag);
      if (lock === undefined) reject('not_found', `no lock for ${noteUseTag}`);
      this.beginWrite();
      this.ledger.locks.set(lock.note_use_tag, { ...lock, reverted: true });
    },
    /** The next `ticks` slots are not produced (Infinity: until resumeSlots). */
    stallSlots: (ticks = Number.POSITIVE_INFINITY): void => {
      if (!(ticks >= 1)) reject('bad_request', 'stall: at least one slot');
      this.faultQueue.stallTicks = ticks;
    },
    resumeSlots: (): void => {
      this.faultQueue.stallTicks = 0;
    },
    clear: (): void => this.faultQueue.clear(),
  };

  /**
   * Per mint: what the pool's vault holds, the value of the unconsumed notes whose opening the chain
   * knows (disclosed at creation, or revealed here by whoever holds them), and how many notes of the
   * mint it cannot value. A settlement output is opaque (section 10): only its owner's opening, given
   * in `revealed`, tells its value and whether it is spent. With every opening revealed `hidden` is
   * 0, and vault equals notes when value is conserved (the property tests check it after every step).
   * A revealed opening must hash to its note's commitment.
   */
  audit(revealed: Iterable<NoteOpeningReveal> = []): Map<string, MintAudit> {
    const openings = new Map<Hex32, DisclosedOpening>();
    for (const reveal of revealed) {
      const owner = fieldOf(reveal.owner_commitment);
      const inner = fieldOf(reveal.note_inner_hash);
      if (
        owner === undefined ||
        inner === undefined ||
        fieldToHex(this.hasher.commitment(owner, inner, reveal.value)) !== reveal.commitment
      ) {
        reject('bad_request', `audit: the opening given for ${reveal.commitment} does not hash to it`);
      }
      const noteUseTag = fieldToHex(this.hasher.noteUseTag(owner, inner));
      openings.set(reveal.commitment, {
        ownerCommitment: owner,
        innerHash: inner,
        value: reveal.value,
        noteUseTag,
      });
    }
    const totals = new Map<string, MintAudit>();
    for (const [mint, vault] of this.ledger.vaults) totals.set(mint, { vault, notes: 0n, hidden: 0 });
    for (const note of this.ledger.notes.values()) {
      const mint = this.ledger.mints.get(fieldToHex(note.assetId)) ?? fieldToHex(note.assetId);
      const entry = totals.get(mint) ?? { vault: 0n, notes: 0n, hidden: 0 };
      const opening = note.opening ?? openings.get(note.commitment);
      if (opening === undefined) totals.set(mint, { ...entry, hidden: entry.hidden + 1 });
      else if (!this.ledger.consumed.has(opening.noteUseTag))
        totals.set(mint, { ...entry, notes: entry.notes + opening.value });
    }
    return totals;
  }

  /** What a client needs to know about this chain before trusting its settlements. */
  info(): ChainInfo {
    return {
      match_proofs: this.matchProofs,
      shards: this.config.shards,
      root_window: this.config.rootWindow,
      finality_depth: this.config.finalityDepth,
      confirmation_depth: this.config.confirmationDepth,
      genesis_id: this.genesisId,
    };
  }
}

/** A note's opening revealed to the audit: the fields a withdraw reveals. */
export interface NoteOpeningReveal {
  readonly commitment: Hex32;
  readonly owner_commitment: Hex32;
  readonly note_inner_hash: Hex32;
  readonly value: bigint;
}

export interface MintAudit {
  readonly vault: bigint;
  /** Value of the unconsumed notes whose opening the chain knows or was shown. */
  readonly notes: bigint;
  /** Notes of this mint (spent or not) whose opening the chain neither holds nor was shown. */
  readonly hidden: number;
}

/** A genesis key or measurement from the options; the all-zero key when absent. */
function genesisKey(value: string | undefined, name: string): Hex32 {
  if (value === undefined) return NO_KEY;
  if (!HEX32.test(value)) reject('bad_request', `${name}: expected 64 lowercase hex characters (32 bytes)`);
  return value;
}

/** A deterministic base58 address for an account named `name` (markets, oracles in dev setups). */
export function accountAddress(kind: 'market' | 'oracle', name: string): string {
  return base58(sha256(Buffer.from(`venue-chain-sim-${kind}-v1\u0000${name}`, 'utf8')));
}
