import { claimedNoteValue, type MarketConfig } from '@venue/core';
import { assetIdOfMint, isStubProof, type ProofVerifier, spentMint, VerifierBusyError } from '@venue/notes';
import { type PlaceOrder, VenueError } from '@venue/protocol';
import type { CommitmentMemo } from './commitment-memo.ts';
import type { ProofChecks } from './intake-checks.ts';

/**
 * The collateral proof at intake (spec 2.1 valid_input_proof), on the notes package's verifier
 * pool. A stub proof is answered with its own code: refused (1034) on a venue that verifies real
 * proofs only, accepted where the venue runs in stub mode (it never settles, and the verifier
 * refuses to exist in stub mode on a settling venue). Any other proof is verified for real in both
 * modes. A full verification queue is 503 VENUE_BUSY, refused at once.
 */
export function proofChecksOf(verifier: ProofVerifier, derivation?: CommitmentDerivation): ProofChecks {
  return {
    async check(order) {
      if (isStubProof(order.valid_input_proof)) {
        if (verifier.mode === 'stub') return;
        throw new VenueError(
          'STUB_PROOF_REFUSED',
          'field `valid_input_proof`: this venue settles, so it needs a real Groth16 VALID_INPUT proof',
        );
      }
      let valid: boolean;
      try {
        valid = await verifyOrder(verifier, order, derivation);
      } catch (error) {
        if (error instanceof VerifierBusyError) {
          throw new VenueError(
            'VENUE_BUSY',
            'the venue is verifying as many proofs as it can; retry in a moment',
          );
        }
        throw error;
      }
      if (!valid) {
        throw new VenueError(
          'INVALID_PROOF',
          'field `valid_input_proof`: does not prove this note, root, tree and key; prove again against a recent root',
        );
      }
    },
  };
}

/**
 * Where the proof worker's re-derivation of an order's note commitment goes (commitment-memo.ts):
 * the memo the core's `noteCommitment` reads, and the price scale that fixes the note value.
 */
export interface CommitmentDerivation {
  readonly memo: CommitmentMemo;
  /** The price scale of the market listed as `symbol`; undefined for an unknown symbol. */
  readonly priceScaleOf: (symbol: string) => bigint | undefined;
}

async function verifyOrder(
  verifier: ProofVerifier,
  order: PlaceOrder,
  derivation: CommitmentDerivation | undefined,
): Promise<boolean> {
  const scale = derivation?.priceScaleOf(order.symbol);
  const value = scale === undefined ? null : claimedNoteValue(order, scale);
  if (derivation === undefined || value === null) return verifier.verify(order);
  const verdict = await verifier.verifyDeriving(order, value);
  if (verdict.valid && verdict.commitment !== null) {
    derivation.memo.remember(order.owner_commitment, order.note_inner_hash, value, verdict.commitment);
  }
  return verdict.valid;
}

/** The asset an order's note must hold: the quote mint for a bid, the base mint for an ask. */
export function assetOfOrder(markets: () => readonly MarketConfig[]): (order: PlaceOrder) => bigint {
  return (order) => {
    const market = markets().find((m) => m.symbol === order.symbol);
    if (market === undefined) {
      throw new VenueError('UNKNOWN_SYMBOL', `field \`symbol\`: no market is listed as ${order.symbol}`);
    }
    return assetIdOfMint(spentMint(order.side, market));
  };
}
