import { createHash } from 'node:crypto';
import { spendAuthorityOf } from '@venue/chain-sim';
import type { MarketConfig } from '@venue/core';
import { fieldToHex, viewingPublicKeyOf } from '@venue/notes';
import {
  CancelParamsSchema,
  ModifyRequestSchema,
  type PlaceOrder,
  PlaceOrderSchema,
  signCancel,
  signModify,
  signPlaceOrder,
  type TradingKey,
  tradingKeyFromSeed,
  type UnsignedPlaceOrder,
  wireJsonText,
} from '@venue/protocol';
import type { SimSocket } from './sim-socket.ts';

/**
 * A simulated trading bot: its account, its Ed25519 trading key and note keys (all from the seed),
 * the notes it deposited and has not used yet, what it knows of its orders, and its connection.
 * It builds signed frames exactly as the SDK does (canonical bytes, wire JSON text).
 */

/** A note the client can open: enough to place an order on it and to re-derive its change. */
export interface SimNote {
  readonly commitment: string;
  readonly ownerCommitment: string;
  readonly innerHash: string;
  readonly value: bigint;
  readonly treeId: number;
  readonly mint: string;
}

export interface SimOrder {
  readonly orderId: string;
  readonly side: 'bid' | 'ask';
  /** The note the order rests on now (the change note after a partial fill). */
  note: SimNote;
  /** The last signed body, for replays. */
  body: PlaceOrder;
}

export interface Token {
  readonly accessToken: string;
  readonly expiresAtMs: number;
  /** The admin revoked it (the client does not know; the simulator does). */
  revoked: boolean;
}

export function seededBytes(label: string): Buffer {
  return createHash('sha256').update(label).digest();
}

export class SimClient {
  readonly accountId: string;
  readonly apiKey: string;
  readonly key: TradingKey;
  readonly spendingKey: bigint;
  readonly viewingPubkey: string;
  /** The public key the chain binds to this client's deposits (derived from its spending key). */
  readonly spendAuthority: string;
  /** Deposited notes not yet behind an order, with the slot of their deposit. */
  readonly wallet: { note: SimNote; slot: bigint }[] = [];
  readonly orders = new Map<string, SimOrder>();
  /** Order ids whose place (or modify) the venue acknowledged: the reply frame arrived. */
  readonly acked = new Set<string>();
  arrivalNonce = 1n;
  cancelNonce = 1n;
  socket: SimSocket | null = null;
  token: Token | null = null;
  /** Logged in on the current socket with a token that was alive at the time. */
  loggedIn = false;
  connections = 0;
  nextRequest = 1;

  constructor(seed: number, index: number) {
    // In the interface's account id form (spec 4.8 login result): the stream checks every frame.
    this.accountId = `acct_${index.toString(16).padStart(32, '0')}`;
    this.apiKey = `sim-key-${index}`;
    this.key = tradingKeyFromSeed(seededBytes(`sim-trading-key-${seed}-${index}`));
    // Below 2^248: a field element whatever the digest.
    this.spendingKey = BigInt(
      `0x${seededBytes(`sim-spending-key-${seed}-${index}`).toString('hex').slice(2)}`,
    );
    this.spendAuthority = spendAuthorityOf(this.spendingKey).publicKey;
    this.viewingPubkey = viewingPublicKeyOf(seededBytes(`sim-viewing-key-${seed}-${index}`).toString('hex'));
  }

  requestId(): string {
    return `r${this.nextRequest++}`;
  }

  /** A signed place-order body for `note` (spec 2.1), with the next arrival nonce. */
  signOrder(fields: {
    orderId: string;
    market: MarketConfig;
    side: 'bid' | 'ask';
    type: 'limit' | 'ioc' | 'fok';
    amount: bigint;
    price: bigint;
    expirySlot: bigint;
    note: SimNote;
    merkleRoot: string;
    sessionId: string;
  }): PlaceOrder {
    const { market, side, amount, price, note } = fields;
    const nominal = side === 'bid' ? (amount * price) / market.priceScale : amount;
    const unsigned: UnsignedPlaceOrder = {
      symbol: market.symbol,
      side,
      order_type: fields.type,
      amount,
      price_limit: price,
      expiry_slot: fields.expirySlot,
      order_id: fields.orderId,
      note_commitment: note.commitment,
      arrival_nonce: this.arrivalNonce++,
      trading_key: this.key.publicKey,
      owner_commitment: note.ownerCommitment,
      note_inner_hash: note.innerHash,
      merkle_root: fields.merkleRoot,
      tree_id: note.treeId,
      valid_input_proof: '00'.repeat(256),
      viewing_pubkey: this.viewingPubkey,
      session_id: fields.sessionId,
      ...(note.value === nominal ? {} : { collateral_amount: note.value }),
    };
    return signPlaceOrder(unsigned, this.key);
  }

  placeFrame(order: PlaceOrder, requestId: string): string {
    return `{"op":"order.place","request_id":"${requestId}","params":${wireJsonText(PlaceOrderSchema, order)}}`;
  }

  cancelFrame(orderId: string, sessionId: string, requestId: string): string {
    const body = {
      order_id: orderId,
      trading_key: this.key.publicKey,
      cancel_nonce: this.cancelNonce++,
      session_id: sessionId,
    };
    const params = {
      trading_key: body.trading_key,
      cancel_nonce: body.cancel_nonce,
      session_id: sessionId,
      trading_key_signature: signCancel(body, this.key),
    };
    return `{"op":"order.cancel","request_id":"${requestId}","order_id":"${orderId}","params":${wireJsonText(CancelParamsSchema, params)}}`;
  }

  modifyFrame(oldOrderId: string, replacement: PlaceOrder, requestId: string): string {
    const request = signModify(oldOrderId, this.cancelNonce++, replacement, this.key);
    return `{"op":"order.modify","request_id":"${requestId}","order_id":"${oldOrderId}","params":${wireJsonText(ModifyRequestSchema, request)}}`;
  }

  loginFrame(token: string, cancelOnDisconnect: boolean, requestId: string): string {
    return JSON.stringify({
      op: 'login',
      request_id: requestId,
      token,
      cancel_on_disconnect: cancelOnDisconnect,
    });
  }

  /** The owner commitment of this client's notes, as wire hex. */
  ownerHex(ownerCommitment: bigint): string {
    return fieldToHex(ownerCommitment);
  }
}
