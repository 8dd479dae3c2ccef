import { loadVerificationKey } from './artifacts.ts';
import {
  type BatchItem,
  loadCurve,
  prepareKey,
  proofPoints,
  verifyEach,
  verifyEachNow,
  verifyOne,
} from './groth16.ts';
import type { MatchProof } from './match-prover.ts';
import { matchPublicInputs } from './match-public-inputs.ts';
import { fillPairingFault } from './match-rules.ts';
import { decodeProof } from './proof-bytes.ts';

/**
 * The chain's side of VALID_MATCH (docs/notes.md section 10.7). The chain builds each leg's
 * statement from what it knows itself (the batch header it checks, its market account, the leg's
 * public fields) and checks the proofs of one batch together: n proofs cost n + 3 Miller loops and
 * one final exponentiation (groth16.ts), bisected down to the bad ones when the batch fails.
 */
export type MatchBatchVerdict =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly fault: 'proof_invalid';
      readonly legs: readonly number[];
      readonly message: string;
    }
  | { readonly ok: false; readonly fault: 'fills_unpaired'; readonly message: string };

export interface MatchVerifier {
  /** One answer per proof, same order: true when the proof verifies for its statement. */
  verifyEach(proofs: readonly MatchProof[]): Promise<boolean[]>;
  /**
   * verifyEach in the caller's turn (groth16.ts verifyEachNow): for the chain simulator, which lands
   * a batch synchronously. The same batch equation and bisection, without the multi-exponentiation.
   */
  verifyEachNow(proofs: readonly MatchProof[]): boolean[];
  /**
   * A settlement batch's proofs: every proof valid, and the fills paired (one bid and one ask per
   * fill tag), which together prove that the batch conserves both assets.
   */
  verifyBatch(proofs: readonly MatchProof[]): Promise<MatchBatchVerdict>;
  close(): Promise<void>;
}

/** Loads the pinned VALID_MATCH verification key (refusing drift) on a single-threaded curve. */
export async function createMatchVerifier(): Promise<MatchVerifier> {
  const [curve, vkey] = await Promise.all([loadCurve(), loadVerificationKey('matchVkey')]);
  const key = prepareKey(curve, vkey);
  const itemOf = (proof: MatchProof): BatchItem | null => {
    const inputs = matchPublicInputs(proof.statement); // inputs outside the field verify as false
    try {
      const points = proofPoints(curve, decodeProof(proof.proof));
      return points === null ? null : { proof: points, inputs };
    } catch {
      return null; // a coordinate outside its field: not a proof of anything
    }
  };
  /** One answer per proof from the answers for its well-formed ones: a malformed proof is false. */
  const answer = (items: readonly (BatchItem | null)[], answers: readonly boolean[]): boolean[] => {
    let next = 0;
    return items.map((item) => item !== null && answers[next++] === true);
  };
  const wellFormedOf = (items: readonly (BatchItem | null)[]) =>
    items.filter((item): item is BatchItem => item !== null);
  const verifyProofs = async (proofs: readonly MatchProof[]): Promise<boolean[]> => {
    const items = proofs.map(itemOf);
    const wellFormed = wellFormedOf(items);
    const answers =
      wellFormed.length > 1
        ? await verifyEach(key, wellFormed)
        : wellFormed.map((item) => verifyOne(key, item.proof, item.inputs));
    return answer(items, answers);
  };
  return {
    verifyEach: verifyProofs,
    verifyEachNow(proofs) {
      const items = proofs.map(itemOf);
      const wellFormed = wellFormedOf(items);
      const answers =
        wellFormed.length > 1
          ? verifyEachNow(key, wellFormed)
          : wellFormed.map((item) => verifyOne(key, item.proof, item.inputs));
      return answer(items, answers);
    },
    async verifyBatch(proofs) {
      const valid = await verifyProofs(proofs);
      const bad = valid.flatMap((ok, i) => (ok ? [] : [i]));
      if (bad.length > 0) {
        return {
          ok: false,
          fault: 'proof_invalid',
          legs: bad,
          message: `the proofs of legs ${bad.join(', ')} do not verify`,
        };
      }
      const unpaired = fillPairingFault(proofs.map((proof) => proof.statement));
      return unpaired === null ? { ok: true } : { ok: false, fault: 'fills_unpaired', message: unpaired };
    },
    close: () => curve.terminate(),
  };
}
