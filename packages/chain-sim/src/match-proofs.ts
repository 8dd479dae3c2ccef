import {
  createMatchVerifier,
  createSpendVerifier,
  isStandInMatchProof,
  isStandInSpendProof,
  type MatchProof,
  type MatchVerifier,
  type SpendProof,
  type SpendVerifier,
} from '@venue/notes';

/**
 * How the chain checks proofs (docs/chain-sim.md sections 6 and 10): the VALID_MATCH proofs of a
 * settlement batch and the VALID_SPEND proof of a withdraw or merge. 'groth16' with the pinned
 * verification keys, 'stand-in' with the stand-in checks of packages/notes (match-stand-in.ts,
 * spend-stand-in.ts: a hash of the statement, which proves nothing; for tests and simulator seeds
 * that cannot afford real proofs). A chain runs one mode for every proof from its creation on and
 * says which (getChainInfo `match_proofs`, the name it had when settlement was the only proof), so
 * a venue can refuse to trade against a stand-in chain.
 */
export const MATCH_PROOF_MODES = ['groth16', 'stand-in'] as const;
export type MatchProofMode = (typeof MATCH_PROOF_MODES)[number];

export interface MatchProofCheck {
  readonly mode: MatchProofMode;
  /** One answer per leg, in the caller's turn: whether its proof verifies for the statement given. */
  verify(legs: readonly MatchProof[]): boolean[];
  /** Whether a withdraw's or merge's proof verifies for the statement the chain rebuilt. */
  verifySpend(spend: SpendProof): boolean;
}

export const STAND_IN_MATCH_PROOFS: MatchProofCheck = {
  mode: 'stand-in',
  verify: (legs) => legs.map((leg) => isStandInMatchProof(leg.statement, leg.proof)),
  verifySpend: (spend) => isStandInSpendProof(spend.statement, spend.proof),
};

// One verifier of each circuit per process: each key is read (and its pin checked) once, and a
// single-threaded curve holds no thread, so every chain of the process can share them.
let groth16Verifiers: Promise<[MatchVerifier, SpendVerifier]> | undefined;

/**
 * The check for `mode`; for 'groth16' this loads the pinned verification keys (async, once per
 * process). Proofs are then verified synchronously: a batch with one batch equation for the whole
 * batch, bisected to the bad legs only when it fails (packages/notes groth16.ts verifyEachNow); a
 * spend with one pairing check.
 */
export async function loadMatchProofCheck(mode: MatchProofMode): Promise<MatchProofCheck> {
  if (mode === 'stand-in') return STAND_IN_MATCH_PROOFS;
  groth16Verifiers ??= Promise.all([createMatchVerifier(), createSpendVerifier()]);
  const [match, spend] = await groth16Verifiers;
  return {
    mode,
    verify: (legs) => match.verifyEachNow(legs),
    verifySpend: (proof) => spend.verifyNow(proof),
  };
}
