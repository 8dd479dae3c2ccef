import type { ValidInputProver } from '@venue/notes';
import type { FillMessage, OrderEvent, OrderRecord } from '@venue/protocol';
import type { VenueClient } from '../client.ts';
import { type NoteWallet, nominalCost, spentMintOf } from '../note-wallet.ts';
import type { NoteInput, OrderRequest } from '../trader.ts';
import type { OrderOutcome } from './settlement-outputs.ts';

/**
 * The bridge between a Trader and its NoteWallet: which note backs which order, from before the
 * first send to the order's end. Trader calls it at each step of an order's life; without a
 * wallet the Trader skips it and the caller manages notes itself.
 * - place: the note is reserved for the order id before the body is signed (claimed from the
 *   wallet, or the caller's note reserved), so no other place can take it; a refusal frees it.
 * - events, reconciled records and cancel replies become wallet outcomes (note-wallet.ts).
 * - modify: the note follows the order to a new id; a replacement on another note reserves that
 *   one first and frees the old one once the venue accepted.
 */

/** Wallet errors kept for the bot to read (memos that do not open, outcomes that do not apply). */
export const WALLET_ERRORS_KEPT_MAX = 100;

export class OrderNotes {
  readonly wallet: NoteWallet;
  readonly #client: VenueClient;
  readonly #tradingKey: string;
  readonly #prover: ValidInputProver | undefined;
  readonly #onError: (error: Error) => void;

  constructor(
    wallet: NoteWallet,
    parts: {
      client: VenueClient;
      tradingKey: string;
      prover?: ValidInputProver | undefined;
      onError: (error: Error) => void;
    },
  ) {
    this.wallet = wallet;
    this.#client = parts.client;
    this.#tradingKey = parts.tradingKey;
    this.#prover = parts.prover;
    this.#onError = parts.onError;
  }

  /**
   * The note fields for a new order `orderId`, with its note reserved for it. A request without an
   * input claims the smallest spendable note that covers the order and proves it (stub proof on a
   * venue whose GET /info says proof_mode stub); a note worth more is named as collateral.
   */
  async inputFor(request: OrderRequest, orderId: string, slot: bigint): Promise<NoteInput> {
    if (request.input !== undefined) {
      if (this.wallet.note(request.input.note_commitment) !== undefined) {
        this.wallet.reserve(request.input.note_commitment, orderId);
      }
      return request.input;
    }
    const stub = this.#client.info.proof_mode === 'stub';
    if (!stub && this.#prover === undefined) {
      throw new Error('placing without an input on a proving venue needs a prover (Trader option `prover`)');
    }
    const instrument = await this.#client.instrument(request.symbol);
    const cost = nominalCost(request, instrument);
    const mint = spentMintOf(request.side, instrument);
    const note = this.wallet.claim(mint, cost, orderId, slot);
    if (note === undefined) {
      throw new RangeError(
        `no spendable note of ${mint} worth at least ${cost}; deposit one, or scan the trees for fills`,
      );
    }
    try {
      const input = await this.wallet.input(
        note,
        this.#tradingKey,
        this.#client,
        stub ? 'stub' : (this.#prover as ValidInputProver),
      );
      return note.value > cost ? { ...input, collateral_amount: note.value } : input;
    } catch (error) {
      this.wallet.unreserve(note.commitment);
      throw error;
    }
  }

  /** The order was never booked (refused, or failed before its first send): its note is free. */
  notBooked(orderId: string): void {
    this.#guard(() => this.wallet.applyOrderOutcome({ order_id: orderId, kind: 'refused' }));
  }

  /** An orders-channel event or a local end (a cancel reply). */
  event(
    event: Pick<OrderEvent, 'order_id' | 'kind' | 'match_id' | 'new_note_amount' | 'lock_expiry_slot'>,
  ): void {
    this.#guard(() => this.wallet.applyOrderOutcome(outcomeOf(event)));
  }

  /** A record read from GET /orders/{id}: the truth after a gap. */
  record(record: OrderRecord): void {
    const { new_note_amount: _, ...outcome } = outcomeOf({ ...record, kind: record.state });
    this.#guard(() => this.wallet.applyOrderOutcome(outcome));
  }

  /** A fills-channel message: the memo is opened and its notes recorded. */
  fill(message: FillMessage): void {
    this.#guard(() => this.wallet.applyFill(message));
  }

  /** Before a modify is sent: the note moves to the replacement's id, or the new note is reserved. */
  beforeModify(oldId: string, newId: string, input: NoteInput | undefined): void {
    if (input === undefined) {
      if (newId !== oldId) this.wallet.rebind(oldId, newId);
    } else if (this.wallet.note(input.note_commitment) !== undefined) {
      this.wallet.reserve(input.note_commitment, newId);
    }
  }

  /** The modify was refused: the notes go back as they were. */
  modifyRefused(oldId: string, newId: string, input: NoteInput | undefined): void {
    this.#guard(() => {
      if (input === undefined) {
        if (newId !== oldId) this.wallet.rebind(newId, oldId);
      } else if (this.wallet.note(input.note_commitment)?.reserved_by === newId) {
        this.wallet.unreserve(input.note_commitment);
      }
    });
  }

  /** The modify was accepted onto another note: the old order's note is free. */
  modifyAccepted(oldId: string, input: NoteInput | undefined): void {
    if (input === undefined) return;
    this.#guard(() => {
      for (const note of this.wallet.backing(oldId)) {
        if (note.commitment !== input.note_commitment) this.wallet.unreserve(note.commitment);
      }
    });
  }

  /** Order ids holding wallet notes right now (what recover() checks against the order log). */
  reservingOrders(): Set<string> {
    const ids = new Set<string>();
    for (const note of this.wallet.notes()) if (note.reserved_by !== undefined) ids.add(note.reserved_by);
    return ids;
  }

  #guard(body: () => void): void {
    try {
      body();
    } catch (error) {
      this.#onError(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

function outcomeOf(
  event: Pick<OrderEvent, 'order_id' | 'match_id' | 'new_note_amount' | 'lock_expiry_slot'> & {
    kind: OrderOutcome['kind'];
  },
): OrderOutcome {
  return {
    order_id: event.order_id,
    kind: event.kind,
    ...(event.match_id === undefined ? {} : { match_id: BigInt(event.match_id) }),
    ...(event.new_note_amount === undefined ? {} : { new_note_amount: event.new_note_amount }),
    ...(event.lock_expiry_slot === undefined ? {} : { lock_expiry_slot: event.lock_expiry_slot }),
  };
}
