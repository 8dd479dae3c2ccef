import { loadVerificationKey } from './artifacts.ts';
import { loadCurve, prepareKey, proofPoints, verifyOne } from './groth16.ts';
import { decodeProof } from './proof-bytes.ts';
import type { SpendProof } from './spend-prover.ts';
import { spendPublicInputs } from './spend-public-inputs.ts';

/**
 * The chain's side of VALID_SPEND (docs/notes.md section 11): the pinned verification key, prepared
 * once on a single-threaded curve, and a synchronous check of one proof against the statement the
 * chain rebuilt from the request and its own ledger. One withdraw or merge carries one proof, so
 * there is nothing to batch: three Miller loops and a final exponentiation (groth16.ts verifyOne).
 */
export interface SpendVerifier {
  /** True when the proof verifies for its statement; a malformed proof or statement is false. */
  verifyNow(proof: SpendProof): boolean;
  close(): Promise<void>;
}

/** Loads the pinned VALID_SPEND verification key (refusing drift). */
export async function createSpendVerifier(): Promise<SpendVerifier> {
  const [curve, vkey] = await Promise.all([loadCurve(), loadVerificationKey('spendVkey')]);
  const key = prepareKey(curve, vkey);
  return {
    verifyNow({ statement, proof }) {
      let inputs: bigint[];
      try {
        inputs = spendPublicInputs(statement); // inputs outside the field verify as false
      } catch {
        return false; // a statement of the wrong shape proves nothing
      }
      try {
        const points = proofPoints(curve, decodeProof(proof));
        return points !== null && verifyOne(key, points, inputs);
      } catch {
        return false; // a coordinate outside its field: not a proof of anything
      }
    },
    close: () => curve.terminate(),
  };
}
