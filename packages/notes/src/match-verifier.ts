import { loadVerificationKey } from './artifacts.ts';
import {
  type BatchItem,
  loadCurve,
  type PreparedKey,
  prepareKey,
  proofPoints,
  verifyEach,
  verifyEachNow,
  verifyOne,
} from './groth16.ts';
import type { MatchProof } from './match-prover.ts';
import {
  MATCH_CIRCUIT_ARTIFACTS,
  MATCH_WIDTHS,
  type MatchWidth,
  matchPublicInputs,
  matchWidthOfStatement,
} from './match-public-inputs.ts';
import { fillPairingFault } from './match-rules.ts';
import { decodeProof } from './proof-bytes.ts';

/**
 * The chain's side of VALID_MATCH (docs/notes.md section 10.7). The chain builds each leg's
 * statement from what it knows itself (the batch header it checks, its market account, the leg's
 * public fields) and checks the proofs of one batch together: n proofs cost n + 3 Miller loops and
 * one final exponentiation (groth16.ts), bisected down to the bad ones when the batch fails. Each
 * statement's width (4 or 16 fill tags) names the circuit, hence the key, that checks its proof; the
 * legs of each width are checked as one batch (two keys share no pairing terms).
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

/** Loads the pinned VALID_MATCH verification keys (refusing drift) on a single-threaded curve. */
export async function createMatchVerifier(): Promise<MatchVerifier> {
  const curve = await loadCurve();
  const keys = new Map<MatchWidth, PreparedKey>();
  for (const width of MATCH_WIDTHS) {
    keys.set(width, prepareKey(curve, await loadVerificationKey(MATCH_CIRCUIT_ARTIFACTS[width].vkey)));
  }
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
  const verifyWidth = async (key: PreparedKey, items: readonly (BatchItem | null)[]): Promise<boolean[]> => {
    const wellFormed = wellFormedOf(items);
    const answers =
      wellFormed.length > 1
        ? await verifyEach(key, wellFormed)
        : wellFormed.map((item) => verifyOne(key, item.proof, item.inputs));
    return answer(items, answers);
  };
  const verifyWidthNow = (key: PreparedKey, items: readonly (BatchItem | null)[]): boolean[] => {
    const wellFormed = wellFormedOf(items);
    const answers =
      wellFormed.length > 1
        ? verifyEachNow(key, wellFormed)
        : wellFormed.map((item) => verifyOne(key, item.proof, item.inputs));
    return answer(items, answers);
  };
  /** The legs of each width, checked with that width's key; a statement of no known width is false. */
  const byWidth = (proofs: readonly MatchProof[]) =>
    [...keys].flatMap(([width, key]) => {
      const indices = proofs.flatMap((proof, i) =>
        matchWidthOfStatement(proof.statement) === width ? [i] : [],
      );
      return indices.length === 0
        ? []
        : [{ key, indices, items: indices.map((i) => itemOf(proofs[i] as MatchProof)) }];
    });
  const verifyProofs = async (proofs: readonly MatchProof[]): Promise<boolean[]> => {
    const valid = new Array<boolean>(proofs.length).fill(false);
    for (const { key, indices, items } of byWidth(proofs)) {
      const answers = await verifyWidth(key, items);
      indices.forEach((proofIndex, i) => {
        valid[proofIndex] = answers[i] === true;
      });
    }
    return valid;
  };
  return {
    verifyEach: verifyProofs,
    verifyEachNow(proofs) {
      const valid = new Array<boolean>(proofs.length).fill(false);
      for (const { key, indices, items } of byWidth(proofs)) {
        const answers = verifyWidthNow(key, items);
        indices.forEach((proofIndex, i) => {
          valid[proofIndex] = answers[i] === true;
        });
      }
      return valid;
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
