/**
 * sha256 of the committed circuit artifacts. Written by scripts/build-circuit.ts together with the
 * artifacts themselves; the loader refuses a file whose hash differs, and a test checks them.
 */
export const ARTIFACT_SHA256 = {
  /** artifacts/valid_input.wasm: the VALID_INPUT witness generator. */
  wasm: 'bb26f023d8e02e964441953f78798bb633d5ab43a9727bb9854b8eddf76df4f8',
  /** artifacts/witness_calculator.cjs: circom's loader for either wasm (the same file). */
  witnessCalculator: '3bfca49ee5489996a827a1e5a0c8a1f558dbd99e657c7591f5b32e0d33189ce4',
  /** artifacts/valid_input.zkey: the VALID_INPUT development proving key. */
  zkey: '1d1bc1b5bebbf49d604b224e8a24e108321ce6c044f63fbf0e4d19cf448d47b9',
  /** artifacts/valid_input.vkey.json: the VALID_INPUT verification key. */
  vkey: '450a9a06ed8a228d5c362f60ec3b62511e4b7a6c03e137932516133465906865',
  /** artifacts/valid_match.wasm: the VALID_MATCH witness generator. */
  matchWasm: 'c9e8539edc017ba45a2a59cb70227893023175e38f5fa2e597b1c7d4ccd56cb5',
  /** artifacts/valid_match.zkey: the VALID_MATCH development proving key. */
  matchZkey: 'cec8de188b856ed176af80bcddd1ba972afa6bc20f7c6a9ce734be575b4d6e4f',
  /** artifacts/valid_match.vkey.json: the VALID_MATCH verification key. */
  matchVkey: '9772ad01e9e7a1d6487e3d8c3f934c0da59099e3afac9fba46dd1f548db92ce2',
  /** artifacts/valid_match_wide.wasm: the VALID_MATCH_WIDE witness generator. */
  matchWideWasm: 'cd0dc9843c98c4da7a9a3be4fcfd20d9af6ff81d79e2b3741b809d2dd980d157',
  /** artifacts/valid_match_wide.zkey: the VALID_MATCH_WIDE development proving key. */
  matchWideZkey: 'caf5bf4a1a45c377353d54228651f46fd704bd63643e0c48de4a392246007a21',
  /** artifacts/valid_match_wide.vkey.json: the VALID_MATCH_WIDE verification key. */
  matchWideVkey: 'ac26dd17e10cf4064f8b3e001475210b4bfcb321b0e49891b81b7d97a80a2d5c',
  /** artifacts/valid_spend.wasm: the VALID_SPEND witness generator. */
  spendWasm: '3c73b430050650d8e1d616876f8a63213feacd3db3802272047083e84c3c8b43',
  /** artifacts/valid_spend.zkey: the VALID_SPEND development proving key. */
  spendZkey: 'd4b52de87084a1853fcd076b8786e35febd8627c51373381dc7f659ce570e0d1',
  /** artifacts/valid_spend.vkey.json: the VALID_SPEND verification key. */
  spendVkey: 'f05d8ada7a37890a6c100ba17e1e30f4e090c5f458e0d53851cd2faf41656531',
  /** artifacts/poseidon.wasm: circomlib's Poseidon, prebuilt (scripts/build-poseidon-wasm.ts). */
  poseidonWasm: '010e3f7315a0427abd7e87ce4b039243f70ade3311e49ff65844892a4d2716d7',
} as const;
