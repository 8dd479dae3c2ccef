import { signDigest, type TradingKey, verifyDigest } from '../crypto/ed25519.ts';
import { VenueError } from '../errors/venue-error.ts';
import type { ModifyRequest, PlaceOrder, UnsignedPlaceOrder } from '../schema/orders.ts';
import {
  type CancelBody,
  encodeCancel,
  encodeModifyCancel,
  encodePlaceOrder,
  modifyCancelBody,
  sha256,
} from './bodies.ts';

/**
 * Signing (SDK side) and verification (venue side) of the three signed bodies. Every signature is
 * Ed25519 over sha256(canonical bytes). Verification failures are VenueError 1102 (spec section 7).
 */

export function signPlaceOrder(order: UnsignedPlaceOrder, key: TradingKey): PlaceOrder {
  if (order.trading_key !== key.publicKey) {
    throw new TypeError('the order names another trading_key than the key signing it');
  }
  return { ...order, trading_key_signature: signDigest(key, sha256(encodePlaceOrder(order))) };
}

export function signCancel(body: CancelBody, key: TradingKey): string {
  if (body.trading_key !== key.publicKey)
    throw new TypeError('the cancel names another trading_key than the key signing it');
  return signDigest(key, sha256(encodeCancel(body)));
}

/** Builds a modify request: the replacement must already be signed by the same key. */
export function signModify(
  oldOrderId: string,
  cancelNonce: bigint,
  replacement: PlaceOrder,
  key: TradingKey,
): ModifyRequest {
  const body = modifyCancelBody(oldOrderId, cancelNonce, replacement);
  if (body.trading_key !== key.publicKey)
    throw new TypeError('the replacement names another trading_key than the key signing it');
  return {
    cancel_signature: signDigest(key, sha256(encodeModifyCancel(body))),
    cancel_nonce: cancelNonce,
    replacement,
  };
}

/**
 * One signature to check: the key, the digest it must sign, the signature, and the error to raise
 * when it does not verify. Verifiers (inline, or a worker pool) run these; the messages live here
 * once.
 */
export interface SignatureCheck {
  readonly publicKey: string;
  readonly digest: Uint8Array;
  readonly signature: string;
  readonly failure: () => VenueError;
}

export function placeSignatureCheck(order: PlaceOrder): SignatureCheck {
  return {
    publicKey: order.trading_key,
    digest: sha256(encodePlaceOrder(order)),
    signature: order.trading_key_signature,
    failure: () =>
      new VenueError(
        'BAD_SIGNATURE',
        'trading_key_signature does not verify: sign sha256 of the canonical venue-order-v5 bytes with trading_key',
      ),
  };
}

export function cancelSignatureCheck(body: CancelBody, signature: string): SignatureCheck {
  return {
    publicKey: body.trading_key,
    digest: sha256(encodeCancel(body)),
    signature,
    failure: () =>
      new VenueError(
        'BAD_SIGNATURE',
        'trading_key_signature does not verify: sign sha256 of the canonical venue-cancel-v5 bytes with trading_key',
      ),
  };
}

/**
 * Both halves of a modify (spec 4.1 rule 3: one key signs both), replacement first. Because the
 * cancel half is checked against the replacement's trading_key, a cancel signed by any other key
 * fails.
 */
export function modifySignatureChecks(
  oldOrderId: string,
  request: ModifyRequest,
): [SignatureCheck, SignatureCheck] {
  const body = modifyCancelBody(oldOrderId, request.cancel_nonce, request.replacement);
  return [
    placeSignatureCheck(request.replacement),
    {
      publicKey: body.trading_key,
      digest: sha256(encodeModifyCancel(body)),
      signature: request.cancel_signature,
      failure: () =>
        new VenueError(
          'BAD_SIGNATURE',
          "cancel_signature does not verify: sign sha256 of the canonical venue-modify-v5 bytes with the replacement's trading_key",
        ),
    },
  ];
}

function runCheck(check: SignatureCheck): void {
  if (!verifyDigest(check.publicKey, check.digest, check.signature)) throw check.failure();
}

export function verifyPlaceOrder(order: PlaceOrder): void {
  runCheck(placeSignatureCheck(order));
}

export function verifyCancel(body: CancelBody, signature: string): void {
  runCheck(cancelSignatureCheck(body, signature));
}

export function verifyModify(oldOrderId: string, request: ModifyRequest): void {
  for (const check of modifySignatureChecks(oldOrderId, request)) runCheck(check);
}
