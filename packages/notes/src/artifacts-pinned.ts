/**
 * sha256 of the committed VALID_INPUT artifacts. Written by scripts/build-circuit.ts together with
 * the artifacts themselves; the loader refuses a file whose hash differs, and a test checks them.
 */
export const ARTIFACT_SHA256 = {
  /** artifacts/valid_input.wasm: the witness generator. */
  wasm: 'bb26f023d8e02e964441953f78798bb633d5ab43a9727bb9854b8eddf76df4f8',
  /** artifacts/witness_calculator.cjs: circom's loader for that wasm. */
  witnessCalculator: '3bfca49ee5489996a827a1e5a0c8a1f558dbd99e657c7591f5b32e0d33189ce4',
  /** artifacts/valid_input.zkey: the development proving key. */
  zkey: '1d1bc1b5bebbf49d604b224e8a24e108321ce6c044f63fbf0e4d19cf448d47b9',
  /** artifacts/valid_input.vkey.json: the verification key. */
  vkey: '450a9a06ed8a228d5c362f60ec3b62511e4b7a6c03e137932516133465906865',
  /** artifacts/valid_match.wasm: the VALID_MATCH witness generator. */
  matchWasm: '0000000000000000000000000000000000000000000000000000000000000000',
  /** artifacts/valid_match.zkey: the VALID_MATCH development proving key. */
  matchZkey: '0000000000000000000000000000000000000000000000000000000000000000',
  /** artifacts/valid_match.vkey.json: the VALID_MATCH verification key. */
  matchVkey: '0000000000000000000000000000000000000000000000000000000000000000',
} as const;
