import { loadVerificationKey } from './artifacts.ts';
import {
  type BatchItem,
  loadCurve,
  type PreparedKey,
  prepareKey,
  proofPoints,
  verifyEach,
  verifyOne,
} from './groth16.ts';
import { loadNoteHasher, type NoteHasher } from './hash.ts';
import { decodeProof } from './proof-bytes.ts';
import { type ProofClaim, publicInputsOfOrder } from './public-inputs.ts';

/** An order's proof claim with the asset its note must hold: what a verification worker receives. */
export interface AssetClaim extends ProofClaim {
  readonly assetId: bigint;
  /** The note value the order claims; when named, the worker also re-derives the note commitment. */
  readonly noteValue?: bigint;
}

/**
 * Checks proof claims on the calling thread: decodes each proof, builds its public inputs, then
 * verifies all well-formed ones as one batch. When the batch fails, it is bisected down to single
 * proofs (groth16.ts verifyEach), so exactly the bad proofs come back false. This is what each
 * worker of the pool runs.
 */
export interface ClaimChecker {
  check(claims: readonly AssetClaim[]): Promise<boolean[]>;
  close(): Promise<void>;
}

/**
 * Above this share of bad proofs in recent batches, batching is switched off: with many bad proofs
 * the bisection costs more than checking each proof once (about 1.5 times at worst).
 */
export const BATCH_BAD_SHARE_MAX = 0.1;

/** Weight of the newest batch in the running bad-proof share. */
const BAD_SHARE_SMOOTHING = 0.25;

export async function createClaimChecker(): Promise<ClaimChecker> {
  const [curve, vkey, hasher] = await Promise.all([loadCurve(), loadVerificationKey(), loadNoteHasher()]);
  const key = prepareKey(curve, vkey);
  let badShare = 0;
  return {
    async check(claims) {
      const results = await checkClaims(key, hasher, claims, badShare <= BATCH_BAD_SHARE_MAX);
      if (results.length > 0) {
        const bad = results.filter((valid) => !valid).length / results.length;
        badShare = (1 - BAD_SHARE_SMOOTHING) * badShare + BAD_SHARE_SMOOTHING * bad;
      }
      return results;
    },
    close: () => curve.terminate(),
  };
}

/** The batch item of a claim, or null when its proof or fields cannot possibly verify. */
function itemOf(key: PreparedKey, hasher: NoteHasher, claim: AssetClaim): BatchItem | null {
  try {
    const proof = proofPoints(key.curve, decodeProof(claim.valid_input_proof));
    if (proof === null) return null;
    return { proof, inputs: publicInputsOfOrder(hasher, claim, claim.assetId) };
  } catch {
    // A proof coordinate or an order hash outside its field: not a valid proof for this order.
    return null;
  }
}

/**
 * Checks claims as one batch (`batched`, bisecting on failure) or one by one. Malformed proofs and
 * fields never reach the pairing check.
 */
export async function checkClaims(
  key: PreparedKey,
  hasher: NoteHasher,
  claims: readonly AssetClaim[],
  batched = true,
): Promise<boolean[]> {
  const items = claims.map((claim) => itemOf(key, hasher, claim));
  const wellFormed = items.filter((item): item is BatchItem => item !== null);
  // A lone proof is cheapest checked directly; several go through the batch and its bisection.
  const answers =
    wellFormed.length > 1 && batched
      ? await verifyEach(key, wellFormed)
      : wellFormed.map((item) => verifyOne(key, item.proof, item.inputs));
  let next = 0;
  return items.map((item) => item !== null && answers[next++] === true);
}
