import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import {
  type CancelParams,
  CancelParamsSchema,
  decodeCancelParams,
  decodeModifyRequest,
  decodePlaceOrder,
  generateTradingKey,
  type ModifyRequest,
  ModifyRequestSchema,
  type PlaceOrder,
  PlaceOrderSchema,
  parseJsonText,
  seedOf,
  signCancel,
  signModify,
  signPlaceOrder,
  type TradingKey,
  tradingKeyFromSeed,
  type UnsignedPlaceOrder,
  wireJsonText,
} from '@venue/protocol';
import { type Clock, SYSTEM_CLOCK } from './tokens.ts';

/**
 * Trading keys and the nonces they sign (spec 2.1, 2.4, 5; docs/protocol.md sections 2 to 4).
 *
 * Each trading key has two counters on the venue, both strictly increasing: `arrival_nonce` for
 * places and `cancel_nonce` for cancels and modifies. A bot that restarts must not reuse a value, or
 * its next order is refused as stale (1201, 1202). The counters here are therefore derived from the
 * wall clock: a nonce is at least `now_ms x 1000`, and at least the previous nonce + 1. A restarted
 * process starts from the clock again and so above everything it issued before, provided the wall
 * clock did not step back and the process did not sustain more than 1000 nonces per millisecond per
 * key (it would run ahead of the clock). A bot that needs a stronger guarantee persists `last` and
 * passes it as `floor` when it starts.
 */

/** Nonces available per millisecond of wall time before a counter runs ahead of the clock. */
export const NONCES_PER_MS = 1000n;

const U64_MAX = 2n ** 64n - 1n;

export class NonceCounter {
  readonly #clock: Clock;
  #last: bigint;

  constructor(clock: Clock = SYSTEM_CLOCK, floor = 0n) {
    this.#clock = clock;
    this.#last = floor;
  }

  /** The last nonce handed out (or the floor): persist it to survive a clock that steps back. */
  get last(): bigint {
    return this.#last;
  }

  /** The next nonce: above every earlier one of this counter, and at least now_ms x 1000. */
  next(): bigint {
    const fromClock = BigInt(Math.floor(this.#clock.nowMs())) * NONCES_PER_MS;
    const next = fromClock > this.#last ? fromClock : this.#last + 1n;
    if (next > U64_MAX) throw new RangeError('nonce counter exhausted the u64 range');
    this.#last = next;
    return next;
  }

  /** Raises the floor, e.g. after the venue reported a higher nonce as already used. */
  advancePast(nonce: bigint): void {
    if (nonce > this.#last) this.#last = nonce;
  }
}

/** A place-order body as the bot composes it: the key, session and nonce are filled in by signing. */
export type OrderDraft = Omit<UnsignedPlaceOrder, 'trading_key' | 'session_id' | 'arrival_nonce'>;

export interface TradingKeysOptions {
  /** Clock of the nonce counters (default: the system clock). */
  readonly clock?: Clock;
  /** Floors of the counters, e.g. the `last` values persisted by a previous run. */
  readonly arrivalNonceFloor?: bigint;
  readonly cancelNonceFloor?: bigint;
  /** Counters to use instead of fresh ones, e.g. the durable ones of a NonceFile. */
  readonly arrivalNonces?: NonceCounter;
  readonly cancelNonces?: NonceCounter;
}

/**
 * One Ed25519 trading key with its two nonce counters. It signs the three bodies with the session
 * id the caller passes (the one of GET /info, see VenueClient.sessionId), and checks every body with
 * the protocol's own decoder before returning it, so a body the venue would refuse on shape alone
 * never leaves the process. The private key never appears in logs: inspection shows the public key.
 */
export class TradingKeys {
  readonly #key: TradingKey;
  readonly arrivalNonces: NonceCounter;
  readonly cancelNonces: NonceCounter;

  private constructor(key: TradingKey, options: TradingKeysOptions) {
    this.#key = key;
    this.arrivalNonces = options.arrivalNonces ?? new NonceCounter(options.clock, options.arrivalNonceFloor);
    this.cancelNonces = options.cancelNonces ?? new NonceCounter(options.clock, options.cancelNonceFloor);
  }

  static generate(options: TradingKeysOptions = {}): TradingKeys {
    return new TradingKeys(generateTradingKey(), options);
  }

  /** From a 32-byte Ed25519 seed (RFC 8032 private key), e.g. read from the bot's key file. */
  static fromSeed(seed: Uint8Array, options: TradingKeysOptions = {}): TradingKeys {
    return new TradingKeys(tradingKeyFromSeed(seed), options);
  }

  get publicKey(): string {
    return this.#key.publicKey;
  }

  /** The 32-byte seed, to store in a key file. Treat it like a password. */
  exportSeed(): Uint8Array {
    return seedOf(this.#key);
  }

  /** Signs a place-order body for `sessionId` with the next arrival nonce (or the one given). */
  signOrder(draft: OrderDraft, sessionId: string, arrivalNonce = this.arrivalNonces.next()): PlaceOrder {
    const signed = signPlaceOrder(
      { ...draft, trading_key: this.#key.publicKey, session_id: sessionId, arrival_nonce: arrivalNonce },
      this.#key,
    );
    return decodePlaceOrder(parseJsonText(wireJsonText(PlaceOrderSchema, signed)));
  }

  /** The cancel parameters of spec 2.4 for `orderId`, with the next cancel nonce (or the one given). */
  signCancel(orderId: string, sessionId: string, cancelNonce = this.cancelNonces.next()): CancelParams {
    const body = {
      order_id: orderId,
      trading_key: this.#key.publicKey,
      cancel_nonce: cancelNonce,
      session_id: sessionId,
    };
    const params: CancelParams = {
      trading_key: body.trading_key,
      cancel_nonce: body.cancel_nonce,
      session_id: body.session_id,
      trading_key_signature: signCancel(body, this.#key),
    };
    return decodeCancelParams(parseJsonText(wireJsonText(CancelParamsSchema, params)));
  }

  /**
   * A modify request (spec 2.2, 4.1): signs the replacement with the next arrival nonce, then the
   * cancel half of the old order with the next cancel nonce, both with this key.
   */
  signModify(oldOrderId: string, replacement: OrderDraft | PlaceOrder, sessionId: string): ModifyRequest {
    const signed =
      'trading_key_signature' in replacement && 'arrival_nonce' in replacement
        ? replacement
        : this.signOrder(replacement, sessionId);
    const request = signModify(oldOrderId, this.cancelNonces.next(), signed, this.#key);
    return decodeModifyRequest(parseJsonText(wireJsonText(ModifyRequestSchema, request)));
  }

  toJSON(): { publicKey: string } {
    return { publicKey: this.#key.publicKey };
  }

  [inspect.custom](): string {
    return `TradingKeys { publicKey: '${this.#key.publicKey}' }`;
  }
}

/** A random, non-zero 16-byte order id (spec 2.1: client-chosen, unique, non-zero). */
export function newOrderId(): string {
  for (;;) {
    const id = randomBytes(16).toString('hex');
    if (id !== '0'.repeat(32)) return id;
  }
}
