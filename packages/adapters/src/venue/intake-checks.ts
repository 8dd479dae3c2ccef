import {
  type CancelParams,
  cancelSignatureCheck,
  encodePlaceOrder,
  type ModifyRequest,
  modifySignatureChecks,
  type PlaceOrder,
  placeSignatureCheck,
  type SignatureCheck,
  sha256,
  verifyCancel,
  verifyModify,
  verifyPlaceOrder,
} from '@venue/protocol';
import type { SignaturePool } from '../workers/signature-pool.ts';

/**
 * The CPU-heavy checks that run before a command is sequenced (design decisions section 6): the
 * trading-key signatures and the collateral proof. Behind interfaces so that a worker pool can take
 * them off the sequencer's thread without the routes noticing. Each throws the catalogue's error
 * (BAD_SIGNATURE, INVALID_PROOF, STUB_PROOF_REFUSED) and otherwise resolves.
 */
export interface SignatureChecks {
  place(order: PlaceOrder): Promise<void>;
  cancel(orderId: string, params: CancelParams): Promise<void>;
  modify(oldOrderId: string, request: ModifyRequest): Promise<void>;
}

export interface ProofChecks {
  /** Verifies `valid_input_proof` against the order's public fields. */
  check(order: PlaceOrder): Promise<void>;
}

/** Signature checks on the calling thread: node:crypto with cached keys (protocol's verifier). */
export const inlineSignatureChecks: SignatureChecks = {
  async place(order) {
    verifyPlaceOrder(order);
  },
  async cancel(orderId, params) {
    verifyCancel(
      {
        order_id: orderId,
        trading_key: params.trading_key,
        cancel_nonce: params.cancel_nonce,
        session_id: params.session_id,
      },
      params.trading_key_signature,
    );
  },
  async modify(oldOrderId, request) {
    verifyModify(oldOrderId, request);
  },
};

/** Signature checks on the worker pool; the same checks and messages as the inline ones. */
export function pooledSignatureChecks(pool: SignaturePool): SignatureChecks {
  const run = async (checks: readonly SignatureCheck[]) => {
    const results = await Promise.all(checks.map((c) => pool.verify(c.publicKey, c.digest, c.signature)));
    const failed = checks.find((_check, i) => results[i] !== true);
    if (failed !== undefined) throw failed.failure();
  };
  return {
    place: (order) => run([placeSignatureCheck(order)]),
    cancel: (orderId, params) =>
      run([
        cancelSignatureCheck(
          {
            order_id: orderId,
            trading_key: params.trading_key,
            cancel_nonce: params.cancel_nonce,
            session_id: params.session_id,
          },
          params.trading_key_signature,
        ),
      ]),
    modify: (oldOrderId, request) => run(modifySignatureChecks(oldOrderId, request)),
  };
}

/** sha256 of the canonical signed bytes, hex: the identity of a signed body for exact repeats. */
export function bodyDigestOf(order: PlaceOrder): string {
  return Buffer.from(sha256(encodePlaceOrder(order))).toString('hex');
}
