import type { ValidInputProver } from '@venue/notes';
import type { FillMessage, Instrument, OrderEvent, OrderRecord } from '@venue/protocol';
import type { VenueClient } from '../client.ts';
import {
  type NoteInput,
  type NoteWallet,
  nominalCost,
  spentMintOf,
  type WalletNote,
} from '../note-wallet.ts';
import type { OrderRequest } from '../order-request.ts';
import type { LocalOrder } from '../order-store.ts';
import type { FillFacts, MarketTerms } from './inferred-outputs.ts';
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
 * - fills: the order's side, limit and market terms go with each fill event or record, so the
 *   wallet can find the match's outputs even when the fill memo never arrives.
 */

/** Record states whose note_commitment is the change of the last settled match, after one. */
const RESTS_ON_CHANGE: ReadonlySet<OrderRecord['state']> = new Set([
  'partially_filled',
  'pending_settlement',
  'cancelled',
  'expired',
  'settlement_failed',
]);

export class OrderNotes {
  readonly wallet: NoteWallet;
  readonly #client: VenueClient;
  readonly #tradingKey: string;
  readonly #prover: ValidInputProver | undefined;
  readonly #onError: (error: Error) => void;
  /** Market terms by symbol, read once (GET /instruments/{symbol}); events are applied synchronously. */
  readonly #markets = new Map<string, MarketTerms>();

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
    const instrument = await this.#instrument(request.symbol);
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
    const cost = nominalCost(request, instrument);
    const mint = spentMintOf(request.side, instrument);
    const note = this.wallet.claim(mint, cost, orderId, slot);
    if (note === undefined) {
      throw new RangeError(
        `no spendable note of ${mint} worth at least ${cost}; deposit one, or scan the trees for fills`,
      );
    }
    try {
      return await this.proved(note, cost);
    } catch (error) {
      this.wallet.unreserve(note.commitment);
      throw error;
    }
  }

  /**
   * The note fields of a wallet note for an order costing `cost`: inclusion path and VALID_INPUT
   * proof (a stub proof on a venue whose GET /info says proof_mode stub); a note worth more than
   * the cost names its value as collateral.
   */
  async proved(note: WalletNote, cost: bigint): Promise<NoteInput> {
    const stub = this.#client.info.proof_mode === 'stub';
    if (!stub && this.#prover === undefined) {
      throw new Error('proving a note on a proving venue needs a prover (Trader option `prover`)');
    }
    const input = await this.wallet.input(
      note,
      this.#tradingKey,
      this.#client,
      stub ? 'stub' : (this.#prover as ValidInputProver),
    );
    return note.value > cost ? { ...input, collateral_amount: note.value } : input;
  }

  /** Reads and keeps the market terms of `symbol` (before events of its orders need them). */
  async know(symbols: Iterable<string>): Promise<void> {
    for (const symbol of new Set(symbols)) {
      if (!this.#markets.has(symbol)) await this.#instrument(symbol);
    }
  }

  async #instrument(symbol: string): Promise<Instrument> {
    const instrument = await this.#client.instrument(symbol);
    this.#markets.set(symbol, {
      base_mint: instrument.base_mint,
      quote_mint: instrument.quote_mint,
      tick_size: instrument.tick_size,
      price_scale: instrument.price_scale,
    });
    return instrument;
  }

  /** The order was never booked (refused, or failed before its first send): its note is free. */
  notBooked(orderId: string): void {
    this.#guard(() => this.wallet.applyOrderOutcome({ order_id: orderId, kind: 'refused' }));
  }

  /**
   * An orders-channel event or a local end (a cancel reply). `before` is the order as the bot knew
   * it before the event: the rise of its filled quantity is the match's base quantity.
   */
  event(
    event: Pick<
      OrderEvent,
      'order_id' | 'kind' | 'match_id' | 'new_note_amount' | 'lock_expiry_slot' | 'filled_quantity'
    >,
    before?: LocalOrder,
  ): void {
    this.#guard(() => {
      const fill = this.#factsOf(before, event.filled_quantity, {
        ...(event.new_note_amount === undefined ? {} : { change_value: event.new_note_amount }),
      });
      this.wallet.applyOrderOutcome({ ...outcomeOf(event), ...(fill === undefined ? {} : { fill }) });
    });
  }

  /** A record read from GET /orders/{id}: the truth after a gap. `before`: the local order then. */
  record(record: OrderRecord, before?: LocalOrder): void {
    const { new_note_amount: _, ...outcome } = outcomeOf({ ...record, kind: record.state });
    this.#guard(() => {
      // The record names the note the order rests on (locked by a pending match), or rested on
      // when it ended without a fill: after a fill, the change of its last settled match.
      const named = RESTS_ON_CHANGE.has(record.state);
      const fill = this.#factsOf(before, record.filled_quantity, {
        ...(named ? { change_commitment: record.note_commitment } : {}),
      });
      this.wallet.applyOrderOutcome({ ...outcome, ...(fill === undefined ? {} : { fill }) });
    });
  }

  /** The fill facts of an order that filled up to `filled` (undefined without the order or market). */
  #factsOf(
    before: LocalOrder | undefined,
    filled: bigint | undefined,
    extra: Pick<FillFacts, 'change_value' | 'change_commitment'>,
  ): FillFacts | undefined {
    if (before === undefined || filled === undefined) return undefined;
    const market = this.#markets.get(before.body.symbol);
    if (market === undefined) return undefined;
    const rise = filled - before.filled_quantity;
    return {
      side: before.body.side,
      price_limit: before.price_limit,
      market,
      ...(rise > 0n ? { base_quantity: rise } : {}),
      ...extra,
    };
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
