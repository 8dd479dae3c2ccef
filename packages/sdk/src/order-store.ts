import { join } from 'node:path';
import {
  type OrderEvent,
  type OrderRecord,
  type OrderState,
  type PlaceOrder,
  TERMINAL_ORDER_STATES,
} from '@venue/protocol';
import { SealedLog } from './sealed-log.ts';

/**
 * The bot's own durable view of its orders. An order is written here, signed, BEFORE its first
 * send (`unsent`), so a bot that crashes between sending and hearing back finds the same order id
 * and the same signed body on restart and resends those: the venue answers an exact repeat with
 * the first result (docs/protocol.md section 4), so a retry can never place twice. Replies, stream
 * events and reconciliation reads then move each order through the states of spec 3.1.
 *
 * The log is sealed (SealedLog) under the key file's storage key.
 */

/** `unsent`: recorded and maybe sent, no answer yet. The others are the venue's states (spec 3.1). */
export type LocalOrderState = 'unsent' | OrderState;

/** One order as the bot knows it; the fields a reconciliation compares with GET /orders/{id}. */
export interface LocalOrder {
  readonly order_id: string;
  /** The signed body last sent for this id (the replacement, after a reprice in place). */
  readonly body: PlaceOrder;
  readonly state: LocalOrderState;
  readonly amount: bigint;
  readonly price_limit: bigint;
  readonly filled_quantity: bigint;
  readonly remaining_amount: bigint;
  readonly note_commitment: string;
  readonly arrival_slot?: bigint;
}

/** What one log record changes. */
type StoreRecord =
  | { readonly kind: 'intent'; readonly body: PlaceOrder }
  | { readonly kind: 'update'; readonly order: LocalOrder };

const TERMINAL: ReadonlySet<LocalOrderState> = new Set(TERMINAL_ORDER_STATES);

export function isTerminal(state: LocalOrderState): boolean {
  return TERMINAL.has(state);
}

export class OrderStore {
  readonly #log: SealedLog<StoreRecord> | null;
  readonly #orders = new Map<string, LocalOrder>();

  /** In memory only when `log` is null (tests and one-shot tools that need no restart safety). */
  constructor(log: SealedLog<StoreRecord> | null = null) {
    this.#log = log;
    for (const record of log?.readAll() ?? []) this.#apply(record);
  }

  /** The store of `<stateDir>/orders.log`, sealed with the key file's storage key. */
  static open(stateDir: string, storageKey: Buffer): OrderStore {
    return new OrderStore(new SealedLog<StoreRecord>(join(stateDir, 'orders.log'), storageKey, 'orders'));
  }

  get(orderId: string): LocalOrder | undefined {
    return this.#orders.get(orderId);
  }

  all(): LocalOrder[] {
    return [...this.#orders.values()];
  }

  /** Orders not yet in a terminal state (including unsent ones). */
  open(): LocalOrder[] {
    return this.all().filter((order) => !isTerminal(order.state));
  }

  /** Records a signed body before it is sent. A new id starts `unsent`; a known id keeps its state. */
  recordIntent(body: PlaceOrder): LocalOrder {
    this.#write({ kind: 'intent', body });
    return this.#orders.get(body.order_id) as LocalOrder;
  }

  /**
   * The venue accepted the order (place reply). Only an unsent order becomes resting: the stream
   * may have delivered a later event of the same order before the REST reply was read.
   */
  accepted(orderId: string, arrivalSlot: bigint): void {
    const order = this.#required(orderId);
    this.#update({
      ...order,
      state: order.state === 'unsent' ? 'resting' : order.state,
      arrival_slot: arrivalSlot,
    });
  }

  /**
   * A modify replaced the body of `orderId` in place: new price, amount and note, resting again.
   * The order keeps what it filled, and the replacement's amount is what is open from now on
   * (spec 4.1 rule 7), so the order's total amount is that plus the fills, as the venue records it.
   */
  replacedInPlace(body: PlaceOrder, arrivalSlot: bigint): void {
    const order = this.#required(body.order_id);
    this.#update({
      ...fromBody(body),
      state: order.filled_quantity > 0n ? 'partially_filled' : 'resting',
      arrival_slot: arrivalSlot,
      amount: body.amount + order.filled_quantity,
      filled_quantity: order.filled_quantity,
      remaining_amount: body.amount,
    });
  }

  /**
   * The order rests on another note now: the change note of a partial fill (spec 3.1), which no
   * event names but the wallet derives. Ignored for a finished order.
   */
  noteMoved(orderId: string, noteCommitment: string): void {
    const order = this.#required(orderId);
    if (isTerminal(order.state) || order.note_commitment === noteCommitment) return;
    this.#update({ ...order, note_commitment: noteCommitment });
  }

  /** Moves an order to `state` (cancel reply, or a refusal that proves the order never booked). */
  settle(orderId: string, state: LocalOrderState): void {
    const order = this.#required(orderId);
    if (isTerminal(order.state) && state !== order.state) return;
    this.#update({ ...order, state });
  }

  /** Drops an unsent order the venue refused: it never existed there. */
  refused(orderId: string): void {
    const order = this.#required(orderId);
    if (order.state === 'unsent') this.#update({ ...order, state: 'cancelled' });
  }

  /**
   * Applies an orders-channel event (spec 6.1). Events of one connection arrive in order, so each
   * applies, except to an order already terminal (spec 3.1: nothing follows a terminal event).
   * Events for ids this store does not hold are ignored.
   */
  applyEvent(event: OrderEvent): void {
    const order = this.#orders.get(event.order_id);
    if (order === undefined || isTerminal(order.state)) return;
    const filled = event.filled_quantity ?? order.filled_quantity;
    this.#update({
      ...order,
      state: event.kind,
      filled_quantity: filled,
      remaining_amount: event.new_amount ?? order.amount - filled,
    });
  }

  /** Replaces the local view of an order by the venue's record: after a gap, the record is the truth. */
  adopt(record: OrderRecord): void {
    const order = this.#orders.get(record.order_id);
    if (order === undefined) return;
    this.#update({
      ...order,
      state: record.state,
      amount: record.amount,
      price_limit: record.price_limit,
      filled_quantity: record.filled_quantity,
      remaining_amount: record.remaining_amount,
      note_commitment: record.note_commitment,
      arrival_slot: record.arrival_slot,
    });
  }

  close(): void {
    this.#log?.close();
  }

  #required(orderId: string): LocalOrder {
    const order = this.#orders.get(orderId);
    if (order === undefined) throw new Error(`order ${orderId} is not in the local order store`);
    return order;
  }

  #update(order: LocalOrder): void {
    this.#write({ kind: 'update', order });
  }

  #write(record: StoreRecord): void {
    this.#log?.append(record);
    this.#apply(record);
  }

  #apply(record: StoreRecord): void {
    if (record.kind === 'update') {
      this.#orders.set(record.order.order_id, record.order);
      return;
    }
    const known = this.#orders.get(record.body.order_id);
    this.#orders.set(
      record.body.order_id,
      known === undefined ? { ...fromBody(record.body), state: 'unsent' } : { ...known, body: record.body },
    );
  }
}

function fromBody(body: PlaceOrder): Omit<LocalOrder, 'state'> {
  return {
    order_id: body.order_id,
    body,
    amount: body.amount,
    price_limit: body.price_limit,
    filled_quantity: 0n,
    remaining_amount: body.amount,
    note_commitment: body.note_commitment,
  };
}
