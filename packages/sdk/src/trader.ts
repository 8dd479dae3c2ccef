import type { ValidInputProver } from '@venue/notes';
import type {
  CancelResponse,
  FillMessage,
  ModifyRequest,
  ModifyResponse,
  OrderEvent,
  OrderRecord,
  PlaceOrder,
  PlaceResponse,
} from '@venue/protocol';
import { ERRORS } from '@venue/protocol';
import type { VenueClient } from './client.ts';
import { NonceFile } from './durable-nonces.ts';
import { AttestationError, VenueApiError } from './errors.ts';
import type { KeyFile } from './key-file.ts';
import {
  EXPIRY_SLACK_SLOTS,
  ORDER_LIFETIME_SLOTS_DEFAULT,
  RECONCILE_ORDERS_MAX,
  RECONCILE_READS_MAX,
  RESEND_PAUSE_MS,
  TIME_READ_REUSE_MS,
  WALLET_ERRORS_KEPT_MAX,
} from './limits.ts';
import { type NoteInput, type NoteWallet, nominalCost } from './note-wallet.ts';
import type { OrderRequest } from './order-request.ts';
import { isTerminal, type LocalOrder, OrderStore } from './order-store.ts';
import { newOrderId, type OrderDraft, type TradingKeys } from './signing.ts';
import type { StreamGap, VenueStream } from './stream.ts';
import type { WalletNote } from './wallet/note-lifecycle.ts';
import { OrderNotes } from './wallet/order-notes.ts';

/**
 * A trading key at work: places, cancels and modifies orders with the safety a bot needs and
 * keeps the bot's own view of its orders in step with the venue's.
 * - Each order id is chosen and written to the OrderStore with its signed body before the first
 *   send; every retry sends those same bytes, so no retry can place a second order.
 * - Nonces come from the key's counters (durable ones with Trader.open), so a restarted bot never
 *   signs a stale nonce.
 * - `expiry_slot` is the venue's current slot (GET /time) plus a lifetime, never the local clock.
 * - A lost answer (network failure, stream closed) is retried with the same body; 429s are waited
 *   out by the client (VenueClient); every refusal ends as the venue's VenueApiError.
 * - Stream events update the view as they arrive; after a stream gap, reconcile() reads the truth.
 * - With a NoteWallet, each order's note is reserved for it before the body is signed and follows
 *   the order to its end: fills spend it and bring change and received notes; an end without a
 *   fill event (a cancel reply, a cancelled or expired event) reads the order's record first, since
 *   a fill not heard yet may have consumed the note (see #orderEnded).
 */

/**
 * What a modify changes; the rest is copied from the order as it stands: its current body, its
 * open amount, and the note it rests on now (after a partial fill, the change note).
 */
export interface ModifyChanges {
  readonly price?: bigint;
  /** The amount open from now on (spec 4.1 rule 7); default: what is open now (`remaining_amount`). */
  readonly amount?: bigint;
  readonly minFillSize?: bigint;
  readonly lifetimeSlots?: bigint;
  /**
   * A new note (and proof) for the replacement; default: the note the order rests on now (spec
   * 4.1 rule 5). After a partial fill that is the change note, which the wallet proves afresh;
   * without a wallet such a modify needs this input.
   */
  readonly input?: NoteInput;
  /** Give the replacement a new order id (the old id is retired and cancelled, spec 3.1). */
  readonly newOrderId?: boolean;
}

export interface TraderOptions {
  readonly client: VenueClient;
  readonly keys: TradingKeys;
  /** X25519 public key that fill memos are encrypted to (spec 2.1 viewing_pubkey). */
  readonly viewingPubkey: string;
  /** Where orders are recorded before sending; an in-memory store when omitted. */
  readonly orders?: OrderStore;
  /** Resends of the same body after a lost answer (default 3). */
  readonly resendsMax?: number;
  /** The wallet whose notes back this trader's orders; without one the caller manages notes. */
  readonly wallet?: NoteWallet;
  /** Proves VALID_INPUT for notes the wallet claims (a venue with proof_mode stub needs none). */
  readonly prover?: ValidInputProver;
  /** Called with each wallet error (a memo that does not open); they are also kept in walletErrors. */
  readonly onWalletError?: (error: Error) => void;
}

/** Options of Trader.open beyond the client, key file and state folder. */
export type TraderOpenOptions = Pick<TraderOptions, 'wallet' | 'prover' | 'onWalletError' | 'resendsMax'>;

export class Trader {
  readonly client: VenueClient;
  readonly keys: TradingKeys;
  readonly orders: OrderStore;
  readonly viewingPubkey: string;
  /** The wallet backing the orders, when one was given. */
  readonly wallet: NoteWallet | undefined;
  /** The last wallet errors (at most WALLET_ERRORS_KEPT_MAX), oldest first. */
  readonly walletErrors: Error[] = [];
  readonly #resendsMax: number;
  readonly #onClose: () => void;
  readonly #notes: OrderNotes | undefined;
  #time: { slot: bigint; readAtMs: number } | null = null;
  #turn: Promise<unknown> = Promise.resolve();
  /** A reconcile waiting for its turn: later gaps join it instead of queueing another. */
  #reconcileQueued: Promise<void> | null = null;
  /** While a reconcile reads: local changes per order id since it began (see reconcile). */
  readonly #changes = new Map<string, number>();
  #reading = false;
  /** Reads of ended orders' records on their way, by order id: one read per order end. */
  readonly #endReads = new Map<string, Promise<void>>();
  readonly #onWalletError: ((error: Error) => void) | undefined;
  readonly #unfollowFailover: () => void;

  constructor(options: TraderOptions, onClose: () => void = () => {}) {
    this.client = options.client;
    this.keys = options.keys;
    this.orders = options.orders ?? new OrderStore();
    this.viewingPubkey = options.viewingPubkey;
    this.wallet = options.wallet;
    this.#resendsMax = options.resendsMax ?? 3;
    this.#onClose = onClose;
    this.#notes =
      options.wallet === undefined
        ? undefined
        : new OrderNotes(options.wallet, {
            client: options.client,
            tradingKey: options.keys.publicKey,
            prover: options.prover,
            onError: (error) => this.#walletError(error),
          });
    this.#onWalletError = options.onWalletError;
    // After a failover the new boot's records are the truth: read every open order's record.
    this.#unfollowFailover = this.client.onFailover(() => {
      this.reconcile().catch((error: Error) => this.#walletError(error));
    });
  }

  #walletError(error: Error): void {
    this.walletErrors.push(error);
    if (this.walletErrors.length > WALLET_ERRORS_KEPT_MAX) this.walletErrors.shift();
    this.#onWalletError?.(error);
  }

  /**
   * A trader for the key file's trading key, with durable nonces and a sealed order log under
   * `stateDir` (one process per trading key: the nonce file is locked). Orders left `unsent` by
   * an earlier run are settled by recover().
   */
  static open(
    client: VenueClient,
    keyFile: KeyFile,
    stateDir: string,
    options: TraderOpenOptions = {},
  ): Trader {
    const nonces = NonceFile.open(stateDir, keyFile.publicParts.trading_key, client.clock);
    const orders = OrderStore.open(stateDir, keyFile.storageKey());
    const keys = keyFile.tradingKeys({ arrivalNonces: nonces.arrival, cancelNonces: nonces.cancel });
    const viewingPubkey = keyFile.publicParts.viewing_pubkey;
    return new Trader({ ...options, client, keys, orders, viewingPubkey }, () => {
      orders.close();
      nonces.close();
    });
  }

  /** `expiry_slot` for an order living `lifetimeSlots` from now, by the venue's slot (spec 2.1, 8). */
  async expirySlot(lifetimeSlots: bigint = ORDER_LIFETIME_SLOTS_DEFAULT): Promise<bigint> {
    const { settlement_buffer_slots: buffer, order_lifetime_slots_max: max } = this.client.info;
    if (lifetimeSlots < buffer + EXPIRY_SLACK_SLOTS || lifetimeSlots > max) {
      throw new RangeError(
        `lifetimeSlots must be ${buffer + EXPIRY_SLACK_SLOTS} to ${max} (the venue's settlement buffer plus ${EXPIRY_SLACK_SLOTS} slots of slack, up to its maximum lifetime), received ${lifetimeSlots}`,
      );
    }
    return (await this.#venueSlot()) + lifetimeSlots;
  }

  /**
   * Signs a new order, records it, then sends it (over `via` if given, else REST). With a wallet,
   * the order's note is reserved for its id first (claimed from the wallet when the request has
   * no input), so concurrent places never back two orders with one note (spec 8).
   */
  async place(request: OrderRequest, via?: VenueStream): Promise<LocalOrder> {
    const orderId = newOrderId();
    let input: NoteInput | undefined;
    try {
      const slot = await this.#venueSlot();
      input = this.#notes === undefined ? request.input : await this.#notes.inputFor(request, orderId, slot);
      if (input === undefined)
        throw new Error('an order needs an input (a note and its proof) or a Trader wallet');
    } catch (error) {
      this.#notes?.notBooked(orderId);
      throw error;
    }
    const proved = input;
    // Signed and sent in turn: a later nonce must not reach the venue first (spec 8 arrival_nonce).
    return this.#inTurn(async () => {
      let body: PlaceOrder;
      try {
        body = this.keys.signOrder(
          await this.#draft({ ...request, input: proved }, orderId, request.lifetimeSlots),
          this.client.sessionId,
        );
        this.orders.recordIntent(body);
      } catch (error) {
        this.#notes?.notBooked(orderId);
        throw error;
      }
      await this.#send(body, via);
      return this.orders.get(orderId) as LocalOrder;
    });
  }

  /**
   * Sends every order a crash left `unsent`: first asks the venue whether it booked it
   * (GET /orders/{id}); if not, resends the recorded body, byte for byte.
   */
  async recover(): Promise<void> {
    await this.readMarkets();
    for (const order of this.orders.all().filter((o) => o.state === 'unsent')) {
      const records = await this.client.reconcile([order.order_id]);
      const record = records.get(order.order_id);
      if (record !== null && record !== undefined) this.#adopt(record);
      else await this.#send(order.body);
    }
    await this.#settleReservations();
  }

  async cancel(orderId: string, via?: VenueStream): Promise<CancelResponse> {
    return this.#inTurn(() => this.#cancelNow(orderId, via));
  }

  async #cancelNow(orderId: string, via?: VenueStream): Promise<CancelResponse> {
    const params = this.keys.signCancel(orderId, this.client.sessionId);
    try {
      const response = await this.#resending(
        (useVia) =>
          useVia === undefined ? this.client.cancel(orderId, params) : useVia.cancel(orderId, params),
        via,
      );
      const before = this.orders.get(orderId);
      this.orders.settle(orderId, 'cancelled');
      await this.#orderEnded(orderId, 'cancelled', before);
      return response;
    } catch (error) {
      await this.#readBack(orderId, error);
      throw error;
    }
  }

  /** Cancel and replace in one step (spec 4.1), same trading key, same market. */
  async modify(orderId: string, changes: ModifyChanges, via?: VenueStream): Promise<LocalOrder> {
    return this.#inTurn(() => this.#modifyNow(orderId, changes, via));
  }

  async #modifyNow(orderId: string, changes: ModifyChanges, via?: VenueStream): Promise<LocalOrder> {
    const current = this.orders.get(orderId);
    if (current === undefined) throw new Error(`order ${orderId} is not in the local order store`);
    const old = current.body;
    const minFill = changes.minFillSize ?? old.min_fill_size;
    const id = changes.newOrderId === true ? newOrderId() : orderId;
    const amount = changes.amount ?? current.remaining_amount;
    const replacement = this.keys.signOrder(
      await this.#draft(
        {
          symbol: old.symbol,
          side: old.side,
          type: old.order_type,
          amount,
          price: changes.price ?? old.price_limit,
          ...(minFill === undefined ? {} : { minFillSize: minFill }),
          input: changes.input ?? (await this.#currentNote(current, amount, changes)),
        },
        id,
        changes.lifetimeSlots,
      ),
      this.client.sessionId,
    );
    const request: ModifyRequest = this.keys.signModify(orderId, replacement, this.client.sessionId);
    this.#notes?.beforeModify(orderId, id, changes.input);
    if (id !== orderId) this.orders.recordIntent(replacement);
    let response: ModifyResponse;
    try {
      response = await this.#resending(
        (useVia) =>
          useVia === undefined ? this.client.modify(orderId, request) : useVia.modify(orderId, request),
        via,
      );
    } catch (error) {
      if (error instanceof VenueApiError) this.#notes?.modifyRefused(orderId, id, changes.input);
      if (id !== orderId) this.orders.refused(id);
      await this.#readBack(orderId, error);
      throw error;
    }
    this.#notes?.modifyAccepted(orderId, changes.input);
    if (id === orderId) {
      this.orders.replacedInPlace(replacement, response.arrival_slot);
    } else {
      this.orders.settle(orderId, 'cancelled');
      this.orders.accepted(id, response.arrival_slot);
    }
    return this.orders.get(id) as LocalOrder;
  }

  /**
   * Applies an orders-channel event to the local view and to the wallet's notes. After a partial
   * fill the order rests on its change note, which the wallet derives: the view follows it.
   */
  applyEvent(event: OrderEvent): void {
    const before = this.orders.get(event.order_id);
    this.#changed(event.order_id);
    this.orders.applyEvent(event);
    if (event.kind === 'cancelled' || event.kind === 'expired') {
      void this.#orderEnded(event.order_id, event.kind, before);
    } else {
      this.#notes?.event(event, before);
    }
    this.#followNote(event.order_id);
  }

  /**
   * Resolves once the record of every order end heard so far (a cancel reply, a `cancelled` or
   * `expired` event) was read and applied to the wallet: until then the order's note stays
   * reserved. A bot that checks its balances right after an end awaits this first.
   */
  async endsSettled(): Promise<void> {
    while (this.#endReads.size > 0) await Promise.all(this.#endReads.values());
  }

  /**
   * An order ended without a fill event: neither a cancel reply nor a `cancelled`/`expired` event
   * says whether it filled first, and a fill whose event has not arrived yet (a reply overtaking
   * the stream, frames lost just before the end) consumed the note on chain. So while the wallet
   * holds a note for the order, its record (GET /orders/{id}) is read and applied instead: its
   * filled quantity shows a missed fill (the note is spent and the change of that match freed).
   * One read per end; a failed read leaves the note reserved until reconcile() or recover().
   */
  #orderEnded(orderId: string, kind: 'cancelled' | 'expired', before: LocalOrder | undefined): Promise<void> {
    if (this.#notes === undefined) return Promise.resolve();
    const running = this.#endReads.get(orderId);
    if (running !== undefined) return running;
    if (this.#notes.wallet.backing(orderId).length === 0) {
      this.#notes.event({ order_id: orderId, kind }, before);
      return Promise.resolve();
    }
    const read = this.#readEnd(orderId, before).finally(() => this.#endReads.delete(orderId));
    this.#endReads.set(orderId, read);
    return read;
  }

  async #readEnd(orderId: string, before: LocalOrder | undefined): Promise<void> {
    try {
      const record = (await this.client.reconcile([orderId])).get(orderId);
      this.#changed(orderId);
      if (record === null || record === undefined) {
        // The venue no longer knows the order: it ended without a fill it could report.
        this.#notes?.event({ order_id: orderId, kind: 'cancelled' });
      } else {
        this.orders.adopt(record);
        this.#notes?.record(record, before);
      }
      this.#followNote(orderId);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.#walletError(
        new Error(
          `order ${orderId} ended but its record could not be read (${why}); its note stays reserved until reconcile() or recover() reads it`,
          { cause: error },
        ),
      );
    }
  }

  /** Applies a fills-channel message to the wallet: its memo's notes join it (no-op without a wallet). */
  applyFill(message: FillMessage): void {
    this.#notes?.fill(message);
  }

  /**
   * Reads the venue's record of every order not terminal locally (GET /orders/{id}) and adopts it.
   * This is the recovery after a stream gap (spec 6.1) and the check at the end of a session.
   *
   * A record is a snapshot, and adopting it must never undo something newer. So the reads take
   * their turn with the signed requests: they start once every earlier place, cancel and modify
   * of this trader was answered and applied, and later ones wait until the records are adopted
   * (a record read while a reprice is on its way would otherwise bring the old price back after
   * the reply). An order whose view an event changed while its record was being read is read
   * again (RECONCILE_READS_MAX times at most). Calls made while one waits for its turn share it.
   */
  reconcile(): Promise<void> {
    if (this.#reconcileQueued !== null) return this.#reconcileQueued;
    const run = this.#inTurn(async () => {
      this.#reconcileQueued = null;
      await this.#reconcileNow();
    });
    this.#reconcileQueued = run;
    return run;
  }

  async #reconcileNow(): Promise<void> {
    this.#reading = true;
    try {
      await this.#readRecords();
      await this.#readEndedReservations();
    } finally {
      this.#reading = false;
      this.#changes.clear();
    }
  }

  async #readRecords(): Promise<void> {
    await this.readMarkets();
    const open = this.orders.open().map((order) => order.order_id);
    for (let i = 0; i < open.length; i += RECONCILE_ORDERS_MAX) {
      let ids = open.slice(i, i + RECONCILE_ORDERS_MAX);
      for (let read = 1; ids.length > 0; read += 1) {
        const seen = new Map(ids.map((id) => [id, this.#changes.get(id) ?? 0]));
        const records = await this.client.reconcile(ids);
        ids = [];
        for (const [id, record] of records) {
          if ((this.#changes.get(id) ?? 0) !== seen.get(id)) ids.push(id);
          else if (record !== null) this.#adopt(record);
          else if (this.orders.get(id)?.state !== 'unsent') this.#settleLocally(id, 'cancelled');
        }
        if (ids.length > 0 && read >= RECONCILE_READS_MAX) {
          throw new Error(
            `orders ${ids.join(', ')} changed during each of ${read} reads of their records; reconcile again`,
          );
        }
      }
    }
  }

  /** Counts a local change of `orderId` while a reconcile reads (see reconcile). */
  #changed(orderId: string): void {
    if (this.#reading) this.#changes.set(orderId, (this.#changes.get(orderId) ?? 0) + 1);
  }

  /**
   * Reads the terms of the open orders' markets (GET /instruments/{symbol}) for the wallet, so that
   * fills applied afterwards are worked out even when their memo never arrives. place, recover()
   * and reconcile() do it by themselves; a process that only applies events calls it first.
   */
  async readMarkets(): Promise<void> {
    await this.#notes?.know(this.orders.open().map((o) => o.body.symbol));
  }

  /**
   * Follows a stream: events update the view, and a gap triggers reconcile(), which waits for the
   * signed requests on their way (see reconcile). Returns an unfollow.
   */
  follow(stream: VenueStream, onReconciled?: (error?: Error) => void): () => void {
    const onOrder = (event: OrderEvent) => this.applyEvent(event);
    const onFill = (message: FillMessage) => this.applyFill(message);
    const onGap = (_gap: StreamGap) => {
      this.reconcile().then(
        () => onReconciled?.(),
        (error: Error) => onReconciled?.(error),
      );
    };
    stream.on('order', onOrder);
    stream.on('fill', onFill);
    stream.on('gap', onGap);
    return () => {
      stream.off('order', onOrder);
      stream.off('fill', onFill);
      stream.off('gap', onGap);
    };
  }

  /** Releases the nonce lock and closes the order log (the client stays open). */
  close(): void {
    this.#unfollowFailover();
    this.#onClose();
  }

  /**
   * Runs `body` after every earlier signed request of this trader has been answered: nonces are
   * drawn in signing order, so sending in that order keeps each nonce above the last accepted.
   */
  #inTurn<T>(body: () => Promise<T>): Promise<T> {
    const next = this.#turn.then(body, body);
    this.#turn = next.catch(() => undefined);
    return next;
  }

  /** The venue's slot (GET /time), a read reused for TIME_READ_REUSE_MS. */
  async #venueSlot(): Promise<bigint> {
    const now = this.client.clock.nowMs();
    if (this.#time === null || now - this.#time.readAtMs > TIME_READ_REUSE_MS) {
      this.#time = { slot: (await this.client.time()).slot, readAtMs: now };
    }
    return this.#time.slot;
  }

  /** Adopts the venue's record of an order, in the order view and the wallet. */
  #adopt(record: OrderRecord): void {
    const before = this.orders.get(record.order_id);
    this.orders.adopt(record);
    this.#notes?.record(record, before);
  }

  /** The order's view names the one wallet note backing it, when the wallet knows that note. */
  #followNote(orderId: string): void {
    const backing = this.wallet?.backing(orderId) ?? [];
    if (backing.length === 1 && this.orders.get(orderId) !== undefined) {
      this.orders.noteMoved(orderId, (backing[0] as WalletNote).commitment);
    }
  }

  /** An order the venue no longer knows is finished here as `state`. */
  #settleLocally(orderId: string, state: 'cancelled'): void {
    this.orders.settle(orderId, state);
    this.#notes?.event({ order_id: orderId, kind: state });
  }

  /**
   * After a crash, the wallet may hold notes for orders that never reached the order log (the
   * crash fell between the reservation and the intent) or whose end it did not hear: the first
   * are freed, the second follow the venue's record.
   */
  async #settleReservations(): Promise<void> {
    if (this.#notes === undefined) return;
    for (const orderId of this.#notes.reservingOrders()) {
      if (this.orders.get(orderId) === undefined) this.#notes.notBooked(orderId);
    }
    await this.#readEndedReservations();
  }

  /**
   * Orders that ended locally while their notes are still reserved (a crash, or a failed read of
   * an end's record, see #orderEnded) follow the venue's record.
   */
  async #readEndedReservations(): Promise<void> {
    if (this.#notes === undefined) return;
    const toRead = [...this.#notes.reservingOrders()].filter((orderId) => {
      const order = this.orders.get(orderId);
      return order !== undefined && isTerminal(order.state) && !this.#endReads.has(orderId);
    });
    for (let i = 0; i < toRead.length; i += RECONCILE_ORDERS_MAX) {
      const records = await this.client.reconcile(toRead.slice(i, i + RECONCILE_ORDERS_MAX));
      for (const [id, record] of records) {
        if (record !== null) this.#notes.record(record);
        else this.#notes.event({ order_id: id, kind: 'cancelled' });
      }
    }
  }

  async #draft(
    request: OrderRequest & { input: NoteInput },
    orderId: string,
    lifetimeSlots?: bigint,
  ): Promise<OrderDraft> {
    const { input } = request;
    return {
      symbol: request.symbol,
      side: request.side,
      order_type: request.type ?? 'limit',
      amount: request.amount,
      price_limit: request.price,
      ...(request.minFillSize === undefined ? {} : { min_fill_size: request.minFillSize }),
      expiry_slot: await this.expirySlot(lifetimeSlots ?? request.lifetimeSlots),
      order_id: orderId,
      note_commitment: input.note_commitment,
      owner_commitment: input.owner_commitment,
      note_inner_hash: input.note_inner_hash,
      merkle_root: input.merkle_root,
      valid_input_proof: input.valid_input_proof,
      ...(input.tree_id === undefined ? {} : { tree_id: input.tree_id }),
      ...(input.collateral_amount === undefined ? {} : { collateral_amount: input.collateral_amount }),
      viewing_pubkey: this.viewingPubkey,
    };
  }

  async #send(body: PlaceOrder, via?: VenueStream): Promise<void> {
    let response: PlaceResponse;
    let answerLost = false;
    try {
      response = await this.#resending((useVia) => {
        const attempt = useVia === undefined ? this.client.place(body) : useVia.place(body);
        attempt.catch((error: unknown) => {
          if (!(error instanceof VenueApiError)) answerLost = true;
        });
        return attempt;
      }, via);
    } catch (error) {
      // After a lost answer (or a body signed for a boot that is gone: a failover), a refusal of a
      // later try says nothing about the first one, which may have booked the order: its record
      // decides. If even that read fails, the order stays unsent for recover().
      if (error instanceof VenueApiError && (answerLost || this.#signedForOldBoot(error, body.session_id))) {
        const record = (await this.client.reconcile([body.order_id])).get(body.order_id);
        if (record !== null && record !== undefined) {
          this.#adopt(record);
          return;
        }
      }
      // A resend of a body whose order has since finished: it was booked, so follow its record.
      if (error instanceof VenueApiError && error.code === ERRORS.ORDER_FINISHED.code) {
        await this.#readBack(body.order_id, error);
        throw error;
      }
      // A refusal means the venue did not book it; anything else leaves it unsent for recover().
      if (error instanceof VenueApiError) {
        this.orders.refused(body.order_id);
        this.#notes?.notBooked(body.order_id);
      }
      throw error;
    }
    this.orders.accepted(body.order_id, response.arrival_slot);
  }

  /** A STALE_SESSION refusal of a body signed for a boot the client has since left. */
  #signedForOldBoot(error: unknown, sessionId: string): boolean {
    return (
      error instanceof VenueApiError &&
      error.code === ERRORS.STALE_SESSION.code &&
      sessionId !== this.client.sessionId
    );
  }

  /**
   * Runs `attempt`, and after a lost answer runs it again (over REST: the stream may be the part
   * that failed). The venue's own refusals and attestation failures are final.
   */
  async #resending<T>(attempt: (via?: VenueStream) => Promise<T>, via?: VenueStream): Promise<T> {
    for (let resend = 0; ; resend += 1) {
      try {
        return await attempt(resend === 0 ? via : undefined);
      } catch (error) {
        if (error instanceof VenueApiError || error instanceof AttestationError) throw error;
        if (resend >= this.#resendsMax) throw error;
        await new Promise((resolve) => setTimeout(resolve, RESEND_PAUSE_MS * (resend + 1)));
      }
    }
  }

  /**
   * The note the order rests on now, for its replacement (spec 4.1 rule 5). Before any fill that
   * is the note its body names, and the body's proof is reused. After a partial fill it is the
   * change note (spec 3.1), which the wallet derived and proves afresh: the original note is
   * consumed on chain. The note's value does not change with the price, so when the replacement
   * costs less the value goes in `collateral_amount` (the surplus returns as change); a note that
   * no longer covers the replacement is refused here, before anything is signed.
   */
  async #currentNote(current: LocalOrder, amount: bigint, changes: ModifyChanges): Promise<NoteInput> {
    const old = current.body;
    const instrument = await this.client.instrument(old.symbol);
    const needed = nominalCost(
      { side: old.side, amount, price: changes.price ?? old.price_limit },
      instrument,
    );
    const change = this.#changeNoteOf(current);
    if (change !== undefined) {
      if (change.value < needed) {
        throw new RangeError(
          `order ${current.order_id} rests on its change note worth ${change.value}, but the replacement costs ${needed}; pass a larger note as input`,
        );
      }
      return (this.#notes as OrderNotes).proved(change, needed);
    }
    const value =
      old.collateral_amount ??
      nominalCost({ side: old.side, amount: old.amount, price: old.price_limit }, instrument);
    if (needed > value) {
      throw new RangeError(
        `the order's note holds ${value} but the replacement costs ${needed}; pass a larger note as input`,
      );
    }
    const { collateral_amount: _, ...rest } = inputOf(old);
    return needed === value ? rest : { ...rest, collateral_amount: value };
  }

  /**
   * The wallet's change note the order rests on when it differs from the note of its body;
   * undefined when the body's note still backs the order. Throws when the order filled since its
   * body was signed and the note it rests on now is not one this trader holds.
   */
  #changeNoteOf(current: LocalOrder): WalletNote | undefined {
    const body = current.body;
    const backing = this.wallet?.backing(current.order_id) ?? [];
    const change = backing.find((n) => n.commitment !== body.note_commitment);
    if (change !== undefined) return change;
    if (backing.length > 0) return undefined;
    // A reprice in place after fills signed `amount` as the open part: the rest was filled before.
    const filledSinceSigned = current.filled_quantity > current.amount - body.amount;
    const moved = current.note_commitment !== body.note_commitment;
    if (!filledSinceSigned && !moved) return undefined;
    throw new Error(
      `order ${current.order_id} was partially filled and rests on a change note${moved ? ` (${current.note_commitment})` : ''} that this trader cannot prove: ${this.wallet === undefined ? 'give the Trader a wallet, or pass the change note as input' : 'reconcile() so the wallet learns it, then modify again'}`,
    );
  }

  /**
   * After a refused cancel or modify, the order may have moved meanwhile (filled, expired, or a
   * resent cancel that had already worked): read its record so the local view follows the venue.
   */
  async #readBack(orderId: string, error: unknown): Promise<void> {
    if (!(error instanceof VenueApiError) || isTerminal(this.orders.get(orderId)?.state ?? 'unsent')) return;
    const record = (await this.client.reconcile([orderId])).get(orderId);
    if (record !== null && record !== undefined) this.#adopt(record);
  }
}

function inputOf(body: PlaceOrder): NoteInput {
  return {
    note_commitment: body.note_commitment,
    owner_commitment: body.owner_commitment,
    note_inner_hash: body.note_inner_hash,
    merkle_root: body.merkle_root,
    valid_input_proof: body.valid_input_proof,
    ...(body.tree_id === undefined ? {} : { tree_id: body.tree_id }),
    ...(body.collateral_amount === undefined ? {} : { collateral_amount: body.collateral_amount }),
  };
}
