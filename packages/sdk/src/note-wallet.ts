import { join } from 'node:path';
import {
  assetIdOfMint,
  createNote,
  deriveChangeNote,
  deriveFillNote,
  fieldFromHex,
  fieldToHex,
  loadNoteHasher,
  type NoteHasher,
  pathFromInclusion,
  type ValidInputProver,
} from '@venue/notes';
import {
  type FillMemoPlaintext,
  type FillMessage,
  type InclusionProofResponse,
  type Instrument,
  type LeavesResponse,
  PROOF_BYTES,
  type Side,
  type TreeRoot,
} from '@venue/protocol';
import type { KeyFile } from './key-file.ts';
import { SealedLog } from './sealed-log.ts';
import type { NoteInput } from './trader.ts';

/**
 * The bot's notes and balances (spec 1 item 4, spec 3.2): the venue keeps no ledger, so the
 * wallet derives them from what only the owner knows (each note's opening) and what everyone can
 * read (the public note trees, GET /tree/leaves). It
 * - prepares deposits: a fresh note opening, recorded before the chain action is sent;
 * - scans the trees page by page and marks a note spendable once its commitment is a leaf;
 * - picks a note for an order and reserves it while the order lives (one order per note, spec 8);
 * - follows order events: a partial fill leaves a change note derived from the parent (D-notes),
 *   a full fill consumes the note;
 * - builds an order's note fields: the inclusion path from GET /tree/inclusion and a VALID_INPUT
 *   proof (or a stub proof on a venue that does not settle, GET /info proof_mode `stub`).
 * Openings are kept in a sealed log under the key file's storage key.
 */

/** pending: deposit sent, not yet a leaf. spendable: a leaf, free. reserved: backs an open order. */
export type NoteStatus = 'pending' | 'spendable' | 'reserved' | 'spent';

export interface WalletNote {
  readonly commitment: string;
  readonly tree_id: number;
  readonly mint: string;
  readonly value: bigint;
  readonly blinding: string;
  readonly inner_hash: string;
  readonly leaf_index?: bigint;
  readonly status: NoteStatus;
  /** The order this note backs while reserved. */
  readonly reserved_by?: string;
}

/** The fields of a chain deposit (chain simulator `deposit`, docs/chain-sim.md) except the spend authority. */
export interface DepositFields {
  readonly tree_id: number;
  readonly mint: string;
  readonly value: bigint;
  readonly owner_commitment: string;
  readonly blinding: string;
}

export interface Balance {
  readonly mint: string;
  readonly spendable: bigint;
  readonly reserved: bigint;
  readonly pending: bigint;
}

/** The tree reads the wallet needs; VenueClient provides them over REST. */
export interface TreeReader {
  treeRoots(): Promise<TreeRoot[]>;
  treeLeaves(treeId: number, from: bigint, limit?: number): Promise<LeavesResponse>;
  treeInclusion(treeId: number, commitment: string): Promise<InclusionProofResponse>;
}

/**
 * Decrypts a fill memo with the viewing key. The memo format is fixed by the protocol
 * (FILL_MEMO_SCHEME); its decryption lives in packages/notes (fill-memo.ts, being written): pass it
 * here. Without one, fills are still tracked from the orders channel and the next tree scan.
 */
export type FillMemoDecryptor = (message: FillMessage, keyFile: KeyFile) => FillMemoPlaintext;

export interface ScanProgress {
  readonly treeId: number;
  readonly leavesRead: number;
  readonly leavesTotal: number;
}

type WalletRecord =
  | { readonly kind: 'note'; readonly note: WalletNote }
  | { readonly kind: 'cursor'; readonly tree_id: number; readonly next: bigint };

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

/** The proof a non-settling venue accepts in place of VALID_INPUT (spec 2.1 valid_input_proof). */
export const STUB_PROOF = '00'.repeat(PROOF_BYTES);

export class NoteWallet {
  readonly #keyFile: KeyFile;
  readonly #hasher: NoteHasher;
  readonly #log: SealedLog<WalletRecord> | null;
  readonly #notes = new Map<string, WalletNote>();
  readonly #cursors = new Map<number, bigint>();
  readonly #decryptMemo: FillMemoDecryptor | undefined;

  private constructor(
    keyFile: KeyFile,
    hasher: NoteHasher,
    log: SealedLog<WalletRecord> | null,
    decryptMemo?: FillMemoDecryptor,
  ) {
    this.#keyFile = keyFile;
    this.#hasher = hasher;
    this.#log = log;
    this.#decryptMemo = decryptMemo;
    for (const record of log?.readAll() ?? []) this.#apply(record);
  }

  /** The wallet of `<stateDir>/notes.log` (in memory when stateDir is null). */
  static async open(
    keyFile: KeyFile,
    stateDir: string | null,
    options: { decryptMemo?: FillMemoDecryptor } = {},
  ): Promise<NoteWallet> {
    const log =
      stateDir === null
        ? null
        : new SealedLog<WalletRecord>(join(stateDir, 'notes.log'), keyFile.storageKey(), 'notes');
    return new NoteWallet(keyFile, await loadNoteHasher(), log, options.decryptMemo);
  }

  notes(): WalletNote[] {
    return [...this.#notes.values()];
  }

  note(commitment: string): WalletNote | undefined {
    return this.#notes.get(commitment);
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
    const opening = createNote(this.#hasher, {
      ownerCommitment: this.#ownerCommitment(),
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
    return {
      note,
      deposit: {
        tree_id: treeId,
        mint: request.mint,
        value: request.value,
        owner_commitment: opening.hex.ownerCommitment,
        blinding: note.blinding,
      },
    };
  }

  /**
   * Reads every shard's new leaves (from where the last scan stopped) and marks each of this
   * wallet's pending notes found there spendable, with its leaf index.
   */
  async scan(reader: TreeReader, onProgress?: (progress: ScanProgress) => void): Promise<WalletNote[]> {
    const found: WalletNote[] = [];
    for (const shard of await reader.treeRoots()) {
      let from = this.#cursors.get(shard.tree_id) ?? 0n;
      while (from < shard.leaf_count) {
        const page = await reader.treeLeaves(shard.tree_id, from);
        for (const leaf of page.leaves) {
          const note = this.#notes.get(leaf.commitment);
          if (note === undefined || note.tree_id !== shard.tree_id || note.leaf_index !== undefined) continue;
          const confirmed: WalletNote = {
            ...note,
            leaf_index: leaf.index,
            status: note.status === 'pending' ? 'spendable' : note.status,
          };
          this.#write({ kind: 'note', note: confirmed });
          found.push(confirmed);
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
    return found;
  }

  balances(): Balance[] {
    const byMint = new Map<string, { spendable: bigint; reserved: bigint; pending: bigint }>();
    for (const note of this.#notes.values()) {
      if (note.status === 'spent') continue;
      const sums = byMint.get(note.mint) ?? { spendable: 0n, reserved: 0n, pending: 0n };
      sums[note.status] += note.value;
      byMint.set(note.mint, sums);
    }
    return [...byMint]
      .map(([mint, sums]) => ({ mint, ...sums }))
      .sort((a, b) => a.mint.localeCompare(b.mint));
  }

  /** The smallest spendable note of `mint` worth at least `amount` (least change locked up). */
  pick(mint: string, amount: bigint): WalletNote | undefined {
    let best: WalletNote | undefined;
    for (const note of this.#notes.values()) {
      if (note.status !== 'spendable' || note.mint !== mint || note.value < amount) continue;
      if (best === undefined || note.value < best.value) best = note;
    }
    return best;
  }

  /** The note backs `orderId` now (spec 3.2 spendable -> venue-reserved). */
  reserve(commitment: string, orderId: string): void {
    const note = this.#required(commitment);
    if (note.status !== 'spendable') throw new Error(`note ${commitment} is ${note.status}, not spendable`);
    this.#write({ kind: 'note', note: { ...note, status: 'reserved', reserved_by: orderId } });
  }

  /** The note was consumed outside an order (a withdraw or merge on chain). */
  spent(commitment: string): void {
    this.#write({ kind: 'note', note: { ...this.#required(commitment), status: 'spent' } });
  }

  /** The order ended without consuming its note (cancelled, expired, failed): spendable again. */
  release(orderId: string): void {
    for (const note of this.#notes.values()) {
      if (note.reserved_by !== orderId || note.status !== 'reserved') continue;
      const { reserved_by: _, ...rest } = note;
      this.#write({ kind: 'note', note: { ...rest, status: 'spendable' } });
    }
  }

  /**
   * Follows an order's note through a fill (spec 3.1, 3.2): a partial fill consumes the note and
   * leaves a change note of `newNoteAmount` (derived as the enclave derives it, pending until the
   * scan sees it), which keeps backing the order; a full fill consumes the note.
   */
  filled(orderId: string, fill: { full: boolean; newNoteAmount?: bigint }): void {
    for (const note of this.#notes.values()) {
      if (note.reserved_by !== orderId || note.status !== 'reserved') continue;
      this.#write({ kind: 'note', note: { ...note, status: 'spent' } });
      if (fill.full || fill.newNoteAmount === undefined || fill.newNoteAmount === 0n) continue;
      const change = deriveChangeNote(
        this.#hasher,
        { ownerCommitment: fieldToHex(this.#ownerCommitment()), innerHash: note.inner_hash },
        assetIdOfMint(note.mint),
        fill.newNoteAmount,
      );
      this.#write({
        kind: 'note',
        note: {
          commitment: change.hex.commitment,
          tree_id: note.tree_id,
          mint: note.mint,
          value: fill.newNoteAmount,
          blinding: fieldToHex(change.blinding),
          inner_hash: change.hex.innerHash,
          status: 'pending',
          reserved_by: orderId,
        },
      });
    }
  }

  /**
   * A fills-channel message: decrypted with the viewing key (when a decryptor is configured), the
   * received note is recorded as pending until the tree scan sees it. Returns the memo, or
   * undefined when no decryptor is configured.
   */
  applyFill(message: FillMessage): FillMemoPlaintext | undefined {
    if (this.#decryptMemo === undefined) return undefined;
    const memo = this.#decryptMemo(message, this.#keyFile);
    const { received } = memo;
    const parent = this.notes().find((note) => note.reserved_by === message.order_id);
    if (parent === undefined || this.#notes.has(received.commitment)) return memo;
    // The owner re-derives the fill note from the spent note, as the enclave did (deriveFillNote),
    // and keeps it only if it is the note the memo names: then its blinding is known and it can back
    // a later order.
    const derived = deriveFillNote(
      this.#hasher,
      { ownerCommitment: fieldToHex(this.#ownerCommitment()), innerHash: parent.inner_hash },
      assetIdOfMint(received.mint),
      received.amount,
    );
    if (derived.hex.commitment !== received.commitment) return memo;
    this.#write({
      kind: 'note',
      note: {
        commitment: received.commitment,
        tree_id: received.tree_id,
        mint: received.mint,
        value: received.amount,
        blinding: fieldToHex(derived.blinding),
        inner_hash: received.inner_hash,
        status: 'pending',
      },
    });
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
    if (note.status === 'pending' || note.status === 'spent') {
      throw new Error(`note ${note.commitment} is ${note.status}; only a note in the tree can back an order`);
    }
    const { path, root } = pathFromInclusion(await reader.treeInclusion(note.tree_id, note.commitment));
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
      owner_commitment: fieldToHex(this.#ownerCommitment()),
      note_inner_hash: note.inner_hash,
      merkle_root: merkleRoot,
      valid_input_proof: STUB_PROOF,
      tree_id: note.tree_id,
    };
  }

  close(): void {
    this.#log?.close();
  }

  #ownerCommitment(): bigint {
    return fieldFromHex(this.#keyFile.publicParts.owner_commitment, 'owner_commitment');
  }

  #required(commitment: string): WalletNote {
    const note = this.#notes.get(commitment);
    if (note === undefined) throw new Error(`note ${commitment} is not in this wallet`);
    return note;
  }

  #write(record: WalletRecord): void {
    this.#log?.append(record);
    this.#apply(record);
  }

  #apply(record: WalletRecord): void {
    if (record.kind === 'cursor') this.#cursors.set(record.tree_id, record.next);
    else this.#notes.set(record.note.commitment, record.note);
  }
}
