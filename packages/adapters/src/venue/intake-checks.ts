import {
  type CancelParams,
  cancelSignatureCheck,
  type ModifyRequest,
  modifySignatureChecks,
  type PlaceOrder,
  placeSignatureCheck,
  type SignatureCheck,
  verifyDigest,
} from '@venue/protocol';
import type { SignaturePool } from '../workers/signature-pool.ts';

/**
 * The CPU-heavy checks that run before a command is sequenced (design decisions section 6): the
 * trading-key signatures and the collateral proof. Behind interfaces so that a worker pool can take
 * them off the sequencer's thread without the routes noticing. Each throws the catalogue's error
 * (BAD_SIGNATURE, INVALID_PROOF, STUB_PROOF_REFUSED) and otherwise resolves.
 */
export interface SignatureChecks {
  /** Resolves to the hex sha256 of the order's canonical bytes: its identity for exact repeats. */
  place(order: PlaceOrder): Promise<string>;
  cancel(orderId: string, params: CancelParams): Promise<void>;
  /** Checks both halves; resolves to the replacement's digest, as `place` does. */
  modify(oldOrderId: string, request: ModifyRequest): Promise<string>;
}

export interface ProofChecks {
  /** Verifies `valid_input_proof` against the order's public fields. */
  check(order: PlaceOrder): Promise<void>;
}

/**
 * The signature checks of the three signed requests, given one way to verify a (key, digest,
 * signature) triple. The canonical bytes are hashed once: the digest that was verified is the one
 * the sequencer records as the body's identity.
 */
function signatureChecksUsing(verify: (check: SignatureCheck) => Promise<boolean>): SignatureChecks {
  const run = async (checks: readonly SignatureCheck[]): Promise<string> => {
    const results = await Promise.all(checks.map(verify));
    const failed = checks.find((_check, i) => results[i] !== true);
    if (failed !== undefined) throw failed.failure();
    return Buffer.from(checks[0]?.digest ?? []).toString('hex');
  };
  return {
    place: (order) => run([placeSignatureCheck(order)]),
    cancel: async (orderId, params) => {
      await run([
        cancelSignatureCheck(
          {
            order_id: orderId,
            trading_key: params.trading_key,
            cancel_nonce: params.cancel_nonce,
            session_id: params.session_id,
          },
          params.trading_key_signature,
        ),
      ]);
    },
    // The replacement's check comes first (modifySignatureChecks), so its digest is returned.
    modify: (oldOrderId, request) => run(modifySignatureChecks(oldOrderId, request)),
  };
}

/** Signature checks on the calling thread: node:crypto with cached keys (protocol's verifier). */
export const inlineSignatureChecks: SignatureChecks = signatureChecksUsing(async (check) =>
  verifyDigest(check.publicKey, check.digest, check.signature),
);

/** Signature checks on the worker pool; the same checks and messages as the inline ones. */
export function pooledSignatureChecks(pool: SignaturePool): SignatureChecks {
  return signatureChecksUsing((check) => pool.verify(check.publicKey, check.digest, check.signature));
}
