import { join } from 'node:path';
import {
  assetIdOfMint,
  createNote,
  createSpendProver,
  fieldFromHex,
  fieldToHex,
  loadNoteHasher,
  type NoteHasher,
  pathFromInclusion,
  proveWithdraw,
  type SpendProver,
  STUB_PROOF_HEX,
  spendAuthorityOf,
  type ValidInputProver,
} from '@venue/notes';
import {
  ERRORS,
  type FillMemoPlaintext,
  type FillMessage,
  type InclusionProofResponse,
  type Instrument,
  type LeavesResponse,
  type Side,
  type TreeRoot,
} from '@venue/protocol';
import {
  CHAIN_RPC_TIMEOUT_MS_DEFAULT,
  ChainRpcError,
  chainConsumed,
  chainDeposit,
  chainWithdraw,
  type DepositReceipt,
  type WithdrawReceipt,
} from './chain-rpc.ts';
import { VenueApiError } from './errors.ts';
import type { KeyFile } from './key-file.ts';
import { SCAN_INCLUSION_CHECKS_MAX, SCAN_OUTPUT_SEARCHES_MAX } from './limits.ts';
import { SealedLog } from './sealed-log.ts';
import { type FillMemoDecryptor, openFillMemoWithKeyFile } from './wallet/fill-memos.ts';
import {
  candidateCommitments,
  candidateValues,
  type ExpectedOutput,
  noteOfOutput,
  type Owner,
  outputKey,
} from './wallet/inferred-outputs.ts';
import { type Balance, NoteBook, type WalletRecord } from './wallet/note-book.ts';
import {
  NoteStateError,
  rebound,
  released,
  reserveFor,
  type WalletNote,
  withdrawCleared,
  withdrawn,
  withdrawSent,
  withLeaf,
} from './wallet/note-lifecycle.ts';
import { type OrderOutcome, recordsForMemo, recordsForOutcome } from './wallet/settlement-outputs.ts';

/** The note an order spends and its proof: the place-order fields of spec 2.1 that NoteWallet builds. */
export interface NoteInput {
  readonly note_commitment: string;
  readonly owner_commitment: string;
  readonly note_inner_hash: string;
  readonly merkle_root: string;
  readonly valid_input_proof: string;
  readonly tree_id?: number;
  readonly collateral_amount?: bigint;
}

export type { FillMemoDecryptor } from './wallet/fill-memos.ts';
export type {
  ExpectedOutput,
  FillFacts,
  MarketTerms,
  ValueRule,
} from './wallet/inferred-outputs.ts';
export type { Balance } from './wallet/note-book.ts';
export type { NoteOrigin, NoteStatus, WalletNote } from './wallet/note-lifecycle.ts';
export type { OrderOutcome } from './wallet/settlement-outputs.ts';

/**
 * The bot's notes and balances (spec 1 item 4, spec 3.2): the venue keeps no ledger, so the
 * wallet derives them from what only the owner knows (each note's opening) and what everyone can
 * read (the public note trees). Each note follows the state machine of wallet/note-lifecycle.ts
 * (pending -> spendable -> reserved -> spent). The wallet
 * - prepares deposits: a fresh opening, recorded before the chain action is sent;
 * - scans the trees and marks a note spendable once its commitment is a leaf;
 * - claims a note for an order (pick and reserve in one synchronous step, so two concurrent
 *   places never get the same note) and keeps it reserved while the order lives (spec 8);
 * - follows the order's outcomes and fill memos (wallet/settlement-outputs.ts): consumed notes
 *   are spent, change and received notes appear with their openings;
 * - builds an order's note fields: the inclusion path and a VALID_INPUT proof (or a stub proof).
 * Every change is appended to a sealed log (under the key file's storage key) before the call
 * returns, and a wallet reopened from that log is the wallet that was closed.
 */

/** The fields of a chain deposit (chain simulator `deposit`, docs/chain-sim.md) except the spend authority. */
export interface DepositFields {
  readonly tree_id: number;
  readonly mint: string;
  readonly value: bigint;
  readonly owner_commitment: string;
  readonly blinding: string;
}

/** The tree reads the wallet needs; VenueClient provides them over REST. */
export interface TreeReader {
  treeRoots(): Promise<TreeRoot[]>;
  treeLeaves(treeId: number, from: bigint, limit?: number): Promise<LeavesResponse>;
  treeInclusion(treeId: number, commitment: string): Promise<InclusionProofResponse>;
}

/** Progress of a scan, per shard. */
export interface ScanProgress {
  readonly treeId: number;
  readonly leavesRead: number;
  readonly leavesTotal: number;
}

/** Options of NoteWallet.open. */
export interface NoteWalletOptions {
  /** How fill memos are opened; default: the protocol scheme with the key file's viewing key. */
  readonly decryptMemo?: FillMemoDecryptor;
  /**
   * Proves withdraws (VALID_SPEND, docs/notes.md section 11); default: the real prover, loaded on
   * the first withdraw. A test against a stand-in chain passes notes' createStandInSpendProver.
   */
  readonly spendProver?: SpendProver;
}

/** An output of a match the wallet knows of but cannot hold yet, and why. */
export interface UnresolvedOutput {
  readonly output: ExpectedOutput;
  /** What is missing: the facts lack a value, or no candidate value was found among the leaves. */
  readonly reason: string;
  /**
   * The facts allow the output to hold nothing (no note then exists): a bid whose clearing price
   * may have spent its note exactly, or an output whose value the facts do not give at all.
   */
  readonly mayBeEmpty: boolean;
}

/**
 * What an order's note must hold (design decisions section 2): a bid pays quote,
 * floor(amount x price_limit / price_scale); an ask sells `amount` of base.
 */
export function nominalCost(
  order: { side: Side; amount: bigint; price: bigint },
  instrument: Pick<Instrument, 'price_scale'>,
): bigint {
  return order.side === 'bid' ? (order.amount * order.price) / instrument.price_scale : order.amount;
}

/** The mint an order's note holds: quote for a bid, base for an ask. */
export function spentMintOf(side: Side, instrument: Pick<Instrument, 'base_mint' | 'quote_mint'>): string {
  return side === 'bid' ? instrument.quote_mint : instrument.base_mint;
}

/**
 * The proof a non-settling venue accepts in place of VALID_INPUT (spec 2.1 valid_input_proof): the
 * notes package's stub, the exact bytes the venue's stub checks compare against.
 */
export const STUB_PROOF = STUB_PROOF_HEX;

export class NoteWallet {
  readonly #keyFile: KeyFile;
  readonly #owner: Owner;
  readonly #log: SealedLog<WalletRecord> | null;
  readonly #book = new NoteBook();
  readonly #decryptMemo: FillMemoDecryptor;
  #spendProver: Promise<SpendProver> | undefined;
  readonly #candidates = new Map<string, Map<string, bigint>>();

  private constructor(
    keyFile: KeyFile,
    hasher: NoteHasher,
    log: SealedLog<WalletRecord> | null,
    decryptMemo: FillMemoDecryptor,
    spendProver: SpendProver | undefined,
  ) {
    this.#keyFile = keyFile;
    this.#spendProver = spendProver === undefined ? undefined : Promise.resolve(spendProver);
    this.#owner = { hasher, ownerCommitment: keyFile.publicParts.owner_commitment };
    this.#log = log;
    this.#decryptMemo = decryptMemo;
    // Not validated here: a log written before the state machine (a pending change note with
    // reserved_by) must still open; validate() is for tests and careful bots.
    for (const record of log?.readAll() ?? []) this.#book.apply(record);
  }

  /** The wallet of `<stateDir>/notes.log` (in memory only when stateDir is null). */
  static async open(
    keyFile: KeyFile,
    stateDir: string | null,
    options: NoteWalletOptions = {},
  ): Promise<NoteWallet> {
    const log =
      stateDir === null
        ? null
        : new SealedLog<WalletRecord>(join(stateDir, 'notes.log'), keyFile.storageKey(), 'notes');
    return new NoteWallet(
      keyFile,
      await loadNoteHasher(),
      log,
      options.decryptMemo ?? openFillMemoWithKeyFile,
      options.spendProver,
    );
  }

  /** Every note the wallet holds an opening of, spent ones included. */
  notes(): WalletNote[] {
    return this.#book.notes();
  }

  /** One note by commitment. */
  note(commitment: string): WalletNote | undefined {
    return this.#book.note(commitment);
  }

  /** The notes reserved by `orderId` right now. */
  backing(orderId: string): WalletNote[] {
    return this.#book.backing(orderId);
  }

  /**
   * A fresh note of `value` units of `mint`, recorded as pending before anything is sent, and the
   * deposit fields to submit on chain (add the spend authority the chain asks for).
   */
  prepareDeposit(request: { mint: string; value: bigint; treeId?: number }): {
    note: WalletNote;
    deposit: DepositFields;
  } {
    if (request.value <= 0n)
      throw new RangeError(`a deposit holds a positive value, received ${request.value}`);
    const treeId = request.treeId ?? 0;
    const opening = createNote(this.#owner.hasher, {
      ownerCommitment: fieldFromHex(this.#owner.ownerCommitment, 'owner_commitment'),
      assetId: assetIdOfMint(request.mint),
      value: request.value,
    });
    const note: WalletNote = {
      commitment: opening.hex.commitment,
      tree_id: treeId,
      mint: request.mint,
      value: request.value,
      blinding: fieldToHex(opening.blinding),
      inner_hash: opening.hex.innerHash,
      status: 'pending',
    };
    this.#write({ kind: 'note', note });
    const deposit = { tree_id: treeId, mint: request.mint, value: request.value, blinding: note.blinding };
    return { note, deposit: { ...deposit, owner_commitment: this.#owner.ownerCommitment } };
  }

  /**
   * The deposit fields with this key file's spend authority (the notes package's rule): what the
   * chain's `deposit` takes, for a bot that sends it with its own chain client.
   */
  depositFields(deposit: DepositFields): DepositFields & { spend_authority: string } {
    return { ...deposit, spend_authority: spendAuthorityOf(this.#keyFile.spendingKey()).publicKey };
  }

  /**
   * Prepares a deposit (the opening is recorded first, so a crash cannot lose a funded note) and
   * sends it to the chain simulator's JSON-RPC at `chainRpcUrl`. The note stays pending until a
   * scan sees its leaf through the venue. A ChainRpcError with reason `transport` leaves it unknown
   * whether the deposit landed (the next scans tell), so the note stays pending; a chain refusal
   * means it did not, and the wallet forgets the note (forgetRefusedDeposit) before rethrowing.
   */
  async depositVia(
    chainRpcUrl: string,
    request: { mint: string; value: bigint; treeId?: number },
    timeoutMs = CHAIN_RPC_TIMEOUT_MS_DEFAULT,
  ): Promise<{ note: WalletNote; receipt: DepositReceipt }> {
    const { note, deposit } = this.prepareDeposit(request);
    let receipt: DepositReceipt;
    try {
      receipt = await chainDeposit(chainRpcUrl, this.depositFields(deposit), timeoutMs);
    } catch (error) {
      if (error instanceof ChainRpcError && error.reason !== 'transport')
        this.forgetRefusedDeposit(note.commitment);
      throw error;
    }
    if (receipt.commitment !== note.commitment || receipt.tree_id !== note.tree_id) {
      throw new ChainRpcError(
        'deposit',
        'transport',
        0,
        `the receipt names note ${receipt.commitment} in shard ${receipt.tree_id}, not the one sent (${note.commitment} in shard ${note.tree_id})`,
      );
    }
    return { note, receipt };
  }

  /**
   * Forgets a prepared deposit the chain refused, so its value no longer shows as pending. Only a
   * note still pending and never seen as a leaf can be forgotten: anything else may hold value.
   * depositVia calls this itself; a bot with its own chain client calls it on the chain's refusal
   * (not on a lost reply, after which the deposit may still have landed).
   */
  forgetRefusedDeposit(commitment: string): void {
    const note = this.#required(commitment);
    // A settlement output (origin set) may be pending too, but its value is real.
    if (note.status !== 'pending' || note.leaf_index !== undefined || note.origin !== undefined) {
      throw new NoteStateError(note, 'forgotten as a refused deposit');
    }
    this.#write({ kind: 'deposit_refused', commitment });
  }

  /**
   * Withdraws a spendable note, all of it, to the public account `recipient` through the chain
   * simulator's JSON-RPC at `chainRpcUrl`: a VALID_SPEND proof (made here, in this thread, about 2 s)
   * shows the chain the note is this key's without its opening, and this key file's spend authority
   * signs the notes package's withdraw bytes. The wallet records the withdraw as sent first (the
   * note then backs no order), and marks the note spent only on the chain's receipt.
   * - A note that is reserved by an order, pending or spent is refused here (NoteStateError),
   *   before anything is sent.
   * - A chain refusal (ChainRpcError with the chain's reason) leaves the note spendable, except
   *   `note_consumed`: the chain no longer holds it, so the wallet records it spent.
   * - A `transport` failure leaves the note spendable but marked `withdraw_to` (no order takes
   *   it): resolveWithdrawals asks the chain which way it went, or send withdrawVia again.
   */
  async withdrawVia(
    chainRpcUrl: string,
    request: { commitment: string; recipient: string },
    timeoutMs = CHAIN_RPC_TIMEOUT_MS_DEFAULT,
  ): Promise<{ note: WalletNote; receipt: WithdrawReceipt }> {
    const sending = this.#put(withdrawSent(this.#required(request.commitment), request.recipient));
    // The chain sees no opening: the proof shows the note is this key's, holds this mint and value.
    this.#spendProver ??= createSpendProver();
    let withdrawal: Awaited<ReturnType<typeof proveWithdraw>>['request'];
    try {
      ({ request: withdrawal } = await proveWithdraw(await this.#spendProver, {
        spendingKey: this.#keyFile.spendingKey(),
        mint: sending.mint,
        note: {
          tree_id: sending.tree_id,
          blinding: fieldFromHex(sending.blinding, 'blinding'),
          value: sending.value,
        },
        value: sending.value,
        recipient: request.recipient,
      }));
    } catch (error) {
      this.#put(withdrawCleared(this.#required(sending.commitment))); // nothing was sent
      throw error;
    }
    let receipt: WithdrawReceipt;
    try {
      receipt = await chainWithdraw(chainRpcUrl, withdrawal, timeoutMs);
    } catch (error) {
      if (error instanceof ChainRpcError && error.reason !== 'transport') {
        const current = this.#required(sending.commitment);
        this.#put(error.reason === 'note_consumed' ? withdrawn(current) : withdrawCleared(current));
      }
      throw error;
    }
    const tag = this.#noteUseTag(sending);
    if (
      receipt.note_use_tag !== tag ||
      receipt.value !== sending.value ||
      receipt.recipient !== request.recipient
    ) {
      throw new ChainRpcError(
        'withdraw',
        'transport',
        0,
        `the receipt names note tag ${receipt.note_use_tag} (${receipt.value} to ${receipt.recipient}), not the withdraw sent; resolveWithdrawals tells whether the note was consumed`,
      );
    }
    return { note: this.#put(withdrawn(this.#required(sending.commitment))), receipt };
  }

  /**
   * Settles every withdraw whose outcome the wallet does not know (a transport failure or a crash
   * after sending): asks the chain whether each note was consumed; consumed ones become spent,
   * the others usable again. Call it once the failed call is over (a reply that timed out may
   * still be in flight). Returns the notes it changed.
   */
  async resolveWithdrawals(
    chainRpcUrl: string,
    timeoutMs = CHAIN_RPC_TIMEOUT_MS_DEFAULT,
  ): Promise<{ spent: WalletNote[]; freed: WalletNote[] }> {
    const spent: WalletNote[] = [];
    const freed: WalletNote[] = [];
    for (const note of this.notes().filter((n) => n.withdraw_to !== undefined)) {
      const entry = await chainConsumed(chainRpcUrl, this.#noteUseTag(note), timeoutMs);
      if (entry === null) freed.push(this.#put(withdrawCleared(note)));
      else spent.push(this.#put(withdrawn(note)));
    }
    return { spent, freed };
  }

  /**
   * Reads every shard's new leaves (from where the last scan stopped) and records the leaf of each
   * note of this wallet found there: a pending note becomes spendable. Then asks for the inclusion
   * of settlement outputs still without a leaf, whose leaves the paging may already have passed.
   */
  async scan(reader: TreeReader, onProgress?: (progress: ScanProgress) => void): Promise<WalletNote[]> {
    const found: WalletNote[] = [];
    for (const shard of await reader.treeRoots()) {
      let from = this.#book.cursor(shard.tree_id);
      while (from < shard.leaf_count) {
        const page = await reader.treeLeaves(shard.tree_id, from);
        for (const leaf of page.leaves) {
          const note = this.#book.note(leaf.commitment);
          if (note === undefined || note.tree_id !== shard.tree_id || note.leaf_index !== undefined) continue;
          found.push(this.#put(withLeaf(note, leaf.index)));
        }
        const next = page.next_from ?? from + BigInt(page.leaves.length);
        if (next <= from) break; // an empty page: the shard shrank (a reorg); read it again next scan
        from = next;
        this.#write({ kind: 'cursor', tree_id: shard.tree_id, next: from });
        onProgress?.({
          treeId: shard.tree_id,
          leavesRead: Number(from),
          leavesTotal: Number(shard.leaf_count),
        });
      }
    }
    const unseen = this.notes().filter(
      (n) => n.origin !== undefined && n.leaf_index === undefined && n.status !== 'spent',
    );
    for (const note of unseen.slice(0, SCAN_INCLUSION_CHECKS_MAX)) {
      const inclusion = await inclusionOrUndefined(reader, note);
      if (inclusion !== undefined) found.push(this.#put(withLeaf(note, inclusion.leaf_index)));
    }
    found.push(...(await this.#searchOutputs(reader)));
    return found;
  }

  /**
   * Outputs of matches the wallet knows of (an event or record said the note was consumed) but
   * holds no note for: the fill memo never arrived and the value is not known, or not yet found in
   * the tree. Each says what is missing.
   */
  unresolvedOutputs(): UnresolvedOutput[] {
    return this.#book.unresolved().map((output) => {
      const { values, complete, mayBeEmpty } = candidateValues(output.rule);
      const reason =
        values.length === 0
          ? `unknown value: missing ${output.missing ?? 'the value'}`
          : `${values.length}${complete ? '' : '+'} candidate values, none a leaf yet${output.missing === undefined ? '' : `; missing ${output.missing}`}`;
      return { output, reason, mayBeEmpty };
    });
  }

  /** Per mint: spendable, reserved, pending (and locked) value, sorted by mint. */
  balances(): Balance[] {
    return this.#book.balances();
  }

  /**
   * The smallest spendable note of `mint` worth at least `amount` (least change locked up). A note
   * locked after a failed settlement is eligible only when `slot` is past its lock.
   */
  pick(mint: string, amount: bigint, slot?: bigint): WalletNote | undefined {
    return this.#book.pick(mint, amount, slot);
  }

  /**
   * Picks and reserves a note for `orderId` in one synchronous step, before the order is signed:
   * concurrent places each get a different note. Undefined when no spendable note covers `amount`.
   */
  claim(mint: string, amount: bigint, orderId: string, slot?: bigint): WalletNote | undefined {
    const note = this.#book.pick(mint, amount, slot);
    return note === undefined ? undefined : this.#put(reserveFor(note, orderId));
  }

  /** The note backs `orderId` now (spec 3.2 spendable -> venue-reserved); throws if it is not spendable. */
  reserve(commitment: string, orderId: string): WalletNote {
    return this.#put(reserveFor(this.#required(commitment), orderId));
  }

  /** Frees one reserved note (its order was never sent, or a modify moved to another note). */
  unreserve(commitment: string): WalletNote {
    return this.#put(released(this.#required(commitment)));
  }

  /** Moves the notes of `fromOrderId` to `toOrderId` (a modify that gives the order a new id). */
  rebind(fromOrderId: string, toOrderId: string): void {
    for (const note of this.#book.backing(fromOrderId)) this.#put(rebound(note, toOrderId));
  }

  /** The order ended without consuming its note (cancelled, expired, refused): free again. */
  release(orderId: string): void {
    this.applyOrderOutcome({ order_id: orderId, kind: 'cancelled' });
  }

  /** A free note was consumed on chain outside an order (a withdraw or merge). */
  spent(commitment: string): WalletNote {
    return this.#put(withdrawn(this.#required(commitment)));
  }

  /**
   * Follows an order outcome (an orders-channel event, a reconciled record or a refused place):
   * fills consume the backing note and create the change, ends free it. Idempotent.
   */
  applyOrderOutcome(outcome: OrderOutcome): void {
    for (const record of recordsForOutcome(this.#book, this.#owner, outcome)) this.#write(record);
  }

  /**
   * A fills-channel message: opened with the viewing key, its received note and change note are
   * checked against their derivation from the spent note and recorded (pending until the scan
   * sees their leaves; a change stays reserved while its order lives). Returns the memo.
   */
  applyFill(message: FillMessage): FillMemoPlaintext {
    const memo = this.#decryptMemo(message, this.#keyFile);
    const matchId = BigInt(message.match_id);
    for (const record of recordsForMemo(this.#book, this.#owner, message.order_id, matchId, memo)) {
      this.#write(record);
    }
    return memo;
  }

  /**
   * The place-order note fields for `note` (spec 2.1): its inclusion path from the venue and a
   * VALID_INPUT proof bound to `tradingKey`, or the stub proof when `prover` is 'stub'.
   */
  async input(
    note: WalletNote,
    tradingKey: string,
    reader: TreeReader,
    prover: ValidInputProver | 'stub',
  ): Promise<NoteInput> {
    // A reserved change note may not have been seen by a scan yet: its inclusion proves its leaf.
    if (note.status === 'pending' || note.status === 'spent') {
      throw new Error(`note ${note.commitment} is ${note.status}; only a note in the tree can back an order`);
    }
    const inclusion = await reader.treeInclusion(note.tree_id, note.commitment);
    if (note.leaf_index === undefined) this.#put(withLeaf(note, inclusion.leaf_index));
    const { path, root } = pathFromInclusion(inclusion);
    if (prover === 'stub') return this.stubInput(note, fieldToHex(root));
    const proved = await prover.prove({
      spendingKey: this.#keyFile.spendingKey(),
      note: {
        assetId: assetIdOfMint(note.mint),
        blinding: fieldFromHex(note.blinding, 'blinding'),
        value: note.value,
      },
      path,
      merkleRoot: root,
      treeId: note.tree_id,
      tradingKey,
    });
    return proved.orderFields;
  }

  /** The note fields with a stub proof against `merkleRoot`, for a venue that does not settle. */
  stubInput(note: WalletNote, merkleRoot: string): NoteInput {
    return {
      note_commitment: note.commitment,
      owner_commitment: this.#owner.ownerCommitment,
      note_inner_hash: note.inner_hash,
      merkle_root: merkleRoot,
      valid_input_proof: STUB_PROOF,
      tree_id: note.tree_id,
    };
  }

  /**
   * Looks for the outputs of matches without a memo among the leaves appended after each spent
   * note: a leaf equal to the commitment of one candidate value proves that value (only this
   * owner's derivation gives it). A found note is spendable, or reserved when it is the change an
   * order still rests on. Unfound outputs remember how far they were compared.
   */
  async #searchOutputs(reader: TreeReader): Promise<WalletNote[]> {
    const open = this.#book
      .unresolved()
      .filter((output) => output.rule.kind !== 'unknown')
      .slice(0, SCAN_OUTPUT_SEARCHES_MAX);
    if (open.length === 0) return [];
    const found: WalletNote[] = [];
    const shardSizes = new Map((await reader.treeRoots()).map((r) => [r.tree_id, r.leaf_count]));
    for (const [treeId, outputs] of groupBy(open, (o) => o.tree_id)) {
      const size = shardSizes.get(treeId) ?? 0n;
      const wanted = new Map<string, { output: ExpectedOutput; value: bigint }>();
      for (const output of outputs) {
        for (const [commitment, value] of this.#candidatesOf(output)) {
          wanted.set(commitment, { output, value });
        }
      }
      let from = outputs.reduce((low, o) => (o.search_from < low ? o.search_from : low), size);
      while (from < size) {
        const page = await reader.treeLeaves(treeId, from);
        for (const leaf of page.leaves) {
          const hit = wanted.get(leaf.commitment);
          if (hit === undefined || leaf.index < hit.output.search_from) continue;
          if (this.#book.note(leaf.commitment) !== undefined) continue;
          found.push(this.#put(this.#foundOutput(hit.output, hit.value, leaf.index)));
        }
        const next = page.next_from ?? from + BigInt(page.leaves.length);
        if (next <= from) break;
        from = next;
      }
      for (const output of outputs) {
        const held = this.#book.outputOf(output.order_id, output.match_id, output.role);
        if (held === undefined && from !== output.search_from) {
          this.#write({ kind: 'expected', output: { ...output, search_from: from } });
        }
      }
    }
    return found;
  }

  /** Candidate commitments of an output, computed once per wallet (up to OUTPUT_VALUES_MAX hashes). */
  #candidatesOf(output: ExpectedOutput): Map<string, bigint> {
    const key = outputKey(output);
    let candidates = this.#candidates.get(key);
    if (candidates === undefined) {
      candidates = candidateCommitments(this.#owner, output);
      this.#candidates.set(key, candidates);
    }
    return candidates;
  }

  /** The note of an expected output found as leaf `leafIndex`. */
  #foundOutput(output: ExpectedOutput, value: bigint, leafIndex: bigint): WalletNote {
    const note = { ...noteOfOutput(this.#owner, output, value), leaf_index: leafIndex };
    // The change of a match the order survived backs the rest of it until the order ends.
    const backs = output.role === 'change' && !this.#book.hasEnded(output.order_id);
    return backs
      ? { ...note, status: 'reserved', reserved_by: output.order_id }
      : { ...note, status: 'spendable' };
  }

  /** Checks the state machine's invariants over every note (throws AssertionError). */
  validate(): void {
    this.#book.validate();
  }

  /** Closes the sealed log. */
  close(): void {
    this.#log?.close();
  }

  #noteUseTag(note: WalletNote): string {
    return this.#owner.hasher.noteUseTagHex(this.#owner.ownerCommitment, note.inner_hash);
  }

  #required(commitment: string): WalletNote {
    const note = this.#book.note(commitment);
    if (note === undefined) throw new Error(`note ${commitment} is not in this wallet`);
    return note;
  }

  #put(note: WalletNote): WalletNote {
    this.#write({ kind: 'note', note });
    return note;
  }

  /** Durable first (fdatasync), then applied: what a caller saw is what a restart finds. */
  #write(record: WalletRecord): void {
    this.#log?.append(record);
    this.#book.apply(record);
  }
}

function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}

/** The note's inclusion, or undefined while it is not a leaf (NOTE_NOT_FOUND). */
async function inclusionOrUndefined(
  reader: TreeReader,
  note: WalletNote,
): Promise<InclusionProofResponse | undefined> {
  try {
    return await reader.treeInclusion(note.tree_id, note.commitment);
  } catch (error) {
    if (error instanceof VenueApiError && error.code === ERRORS.NOTE_NOT_FOUND.code) return undefined;
    throw error;
  }
}
