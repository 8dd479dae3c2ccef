import { assert, U8_MAX } from '@venue/protocol';

/**
 * Every default and limit of the chain simulator, in one place (docs/chain-sim.md section 9).
 * Names put the unit or qualifier last. `checkConfig` refuses a configuration outside them at start.
 */

/** Nominal slot length of the wall clock; Solana-like. */
export const SLOT_MS_DEFAULT = 400;
/** Slots after inclusion before an effect is final (and can no longer be rolled back). */
export const FINALITY_DEPTH_DEFAULT = 32;
/** Slots after inclusion before an effect counts as confirmed. */
export const CONFIRMATION_DEPTH_DEFAULT = 1;
/** Note tree shards at genesis (tree_id 0..n-1). */
export const SHARDS_DEFAULT = 4;
/** tree_id is a u8 (spec 2.1), so at most 256 shards. */
export const SHARDS_MAX = U8_MAX + 1;
/** Recent roots kept per shard; a settlement input must name one of them. */
export const ROOT_WINDOW_DEFAULT = 64;
export const ROOT_WINDOW_MAX = 4096;
/** Longest finality depth accepted: bounds the per-slot history kept for rollbacks. */
export const FINALITY_DEPTH_MAX = 1024;

/** Legs (input notes) one settlement batch may carry. */
export const BATCH_LEGS_MAX = 1024;
/** Outputs per leg: what the fill bought and the change. */
export const OUTPUTS_PER_LEG_MAX = 2;
/** Notes one merge may combine. */
export const MERGE_INPUTS_MAX = 8;
/** Notes one lock request may lock (a match locks two; a batch of the venue at most one per leg). */
export const LOCKS_PER_REQUEST_MAX = BATCH_LEGS_MAX;
/** Longest lock, in slots from now. */
export const LOCK_SLOTS_MAX = 9000n;
/** Bytes of the reserved VALID_MATCH_BATCH proof field. */
export const BATCH_PROOF_BYTES_MAX = 4096;

/** Settlement transactions remembered for status reads (oldest forgotten first). */
export const TX_LOG_ENTRIES_MAX = 100_000;
/** Delayed settlements waiting for their slot. */
export const PENDING_TXS_MAX = 10_000;
/** Governance actions kept; far more than any test or deployment makes. */
export const GOVERNANCE_ACTIONS_MAX = 1024;
/** Markets and oracle accounts. */
export const MARKETS_MAX = 256;
export const ORACLES_MAX = 256;

/** JSON-RPC request body: a full batch of BATCH_LEGS_MAX legs fits with room to spare. */
export const RPC_BODY_BYTES_MAX = 2 * 1024 * 1024;
/** Slots one `advance` call may move (a test that wants more loops). */
export const ADVANCE_SLOTS_MAX = 100_000;

export interface ChainConfig {
  readonly shards: number;
  readonly rootWindow: number;
  readonly finalityDepth: number;
  readonly confirmationDepth: number;
  readonly slotMs: number;
}

export function checkConfig(config: ChainConfig): ChainConfig {
  assert(
    Number.isInteger(config.shards) && config.shards >= 1 && config.shards <= SHARDS_MAX,
    'shards: 1 to 256',
  );
  assert(
    Number.isInteger(config.rootWindow) && config.rootWindow >= 1 && config.rootWindow <= ROOT_WINDOW_MAX,
    `rootWindow: 1 to ${ROOT_WINDOW_MAX}`,
  );
  assert(
    Number.isInteger(config.finalityDepth) &&
      config.finalityDepth >= 1 &&
      config.finalityDepth <= FINALITY_DEPTH_MAX,
    `finalityDepth: 1 to ${FINALITY_DEPTH_MAX}`,
  );
  assert(
    Number.isInteger(config.confirmationDepth) &&
      config.confirmationDepth >= 0 &&
      config.confirmationDepth <= config.finalityDepth,
    'confirmationDepth: 0 to finalityDepth',
  );
  assert(Number.isInteger(config.slotMs) && config.slotMs >= 1, 'slotMs: a positive integer');
  return config;
}
