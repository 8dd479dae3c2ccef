import { createMatchVerifier, isStandInMatchProof, type MatchProof, type MatchVerifier } from '@venue/notes';

/**
 * How the chain checks the VALID_MATCH proofs of a settlement batch (docs/chain-sim.md section 6):
 * 'groth16' with the pinned verification key, 'stand-in' with the stand-in check of
 * packages/notes/src/match-stand-in.ts (a hash of the statement, which proves nothing: for tests and
 * simulator seeds that cannot afford real proofs). A chain runs one mode from its creation on and
 * says which (getChainInfo), so a venue can refuse to trade against a stand-in chain.
 */
export const MATCH_PROOF_MODES = ['groth16', 'stand-in'] as const;
export type MatchProofMode = (typeof MATCH_PROOF_MODES)[number];

export interface MatchProofCheck {
  readonly mode: MatchProofMode;
  /** One answer per leg, in the caller's turn: whether its proof verifies for the statement given. */
  verify(legs: readonly MatchProof[]): boolean[];
}

export const STAND_IN_MATCH_PROOFS: MatchProofCheck = {
  mode: 'stand-in',
  verify: (legs) => legs.map((leg) => isStandInMatchProof(leg.statement, leg.proof)),
};

// One verifier per process: the key is read (and its pin checked) once, and a single-threaded curve
// holds no thread, so every chain of the process can share it.
let groth16Verifier: Promise<MatchVerifier> | undefined;

/**
 * The check for `mode`; for 'groth16' this loads the pinned verification key (async, once per
 * process). Batches are then verified synchronously: one batch equation for the whole batch,
 * bisected to the bad legs only when it fails (packages/notes groth16.ts verifyEachNow).
 */
export async function loadMatchProofCheck(mode: MatchProofMode): Promise<MatchProofCheck> {
  if (mode === 'stand-in') return STAND_IN_MATCH_PROOFS;
  groth16Verifier ??= createMatchVerifier();
  const verifier = await groth16Verifier;
  return { mode, verify: (legs) => verifier.verifyEachNow(legs) };
}
