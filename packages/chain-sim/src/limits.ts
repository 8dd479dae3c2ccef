import { MATCH_FILLS_MAX } from '@venue/notes';
import {
  assert,
  BATCH_LEGS_MAX,
  FILL_TAGS_PER_LEG_MAX,
  LEAVES_PAGE_MAX,
  LOCKS_PER_REQUEST_MAX,
  ORDER_LIFETIME_SLOTS_MAX,
  MARKETS_MAX as PROTOCOL_MARKETS_MAX,
  TREE_PAGES_PER_SHARD_MAX,
  TREE_UPDATE_LEAVES_MAX,
  U8_MAX,
} from '@venue/protocol';

/**
 * Every default and limit of the chain simulator, in one place (docs/chain-sim.md section 9).
 * Names put the unit or qualifier last. `checkConfig` refuses a configuration outside them at start,
 * and `checkChainLimitRelations` asserts the relations between them when a chain is built.
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

// The bounds of the chain's messages (legs, outputs, merge inputs, locks per request, the proof
// field, the RPC body, slots per advance, the settlement view and tree-update answers) are part of
// the chain contract.
export {
  ADVANCE_SLOTS_MAX,
  BATCH_LEGS_MAX,
  FILL_TAGS_PER_LEG_MAX,
  LOCKS_PER_REQUEST_MAX,
  MERGE_INPUTS_MAX,
  RPC_BODY_BYTES_MAX,
  SETTLEMENT_VIEW_KEYS_MAX,
  TREE_ANCHORS_MAX,
  TREE_PAGES_PER_SHARD_MAX,
  TREE_UPDATE_LEAVES_MAX,
} from '@venue/protocol';
/** Longest lock, in slots from now. */
export const LOCK_SLOTS_MAX = 9000n;

/** Settlement transactions remembered for status reads (oldest forgotten first). */
export const TX_LOG_ENTRIES_MAX = 100_000;
/** Delayed settlements waiting for their slot. */
export const PENDING_TXS_MAX = 10_000;
/** Governance actions kept; far more than any test or deployment makes. */
export const GOVERNANCE_ACTIONS_MAX = 1024;
/** Markets and oracle accounts. */
export const MARKETS_MAX = 256;
/** Token metadata accounts (two mints per market at most). */
export const MINTS_MAX = 2 * MARKETS_MAX;
export const ORACLES_MAX = 256;

const SHIPPED_CHAIN_LIMITS = {
  SHARDS_DEFAULT,
  SHARDS_MAX,
  ROOT_WINDOW_DEFAULT,
  ROOT_WINDOW_MAX,
  FINALITY_DEPTH_DEFAULT,
  FINALITY_DEPTH_MAX,
  CONFIRMATION_DEPTH_DEFAULT,
  BATCH_LEGS_MAX,
  FILL_TAGS_PER_LEG_MAX,
  MATCH_FILLS_MAX,
  LOCKS_PER_REQUEST_MAX,
  LOCK_SLOTS_MAX,
  MARKETS_MAX,
  PROTOCOL_MARKETS_MAX,
  ORDER_LIFETIME_SLOTS_MAX,
  LEAVES_PAGE_MAX,
  TREE_UPDATE_LEAVES_MAX,
  TREE_PAGES_PER_SHARD_MAX,
};

/** The chain's limits with their types widened, so a test can hand in an edited copy. */
export type ChainLimits = {
  readonly [K in keyof typeof SHIPPED_CHAIN_LIMITS]: (typeof SHIPPED_CHAIN_LIMITS)[K] extends bigint
    ? bigint
    : number;
};

export const CHAIN_LIMITS: ChainLimits = SHIPPED_CHAIN_LIMITS;

/** The relations between the chain's limits that the code relies on; returns those that fail. */
export function brokenChainLimitRelations(limits: ChainLimits): string[] {
  const l = limits;
  const relations: Array<[boolean, string]> = [
    [
      l.SHARDS_DEFAULT >= 1 && l.SHARDS_DEFAULT <= l.SHARDS_MAX,
      'SHARDS_DEFAULT <= SHARDS_MAX: the default configuration passes checkConfig',
    ],
    [
      l.ROOT_WINDOW_DEFAULT >= 1 && l.ROOT_WINDOW_DEFAULT <= l.ROOT_WINDOW_MAX,
      'ROOT_WINDOW_DEFAULT <= ROOT_WINDOW_MAX: the default configuration passes checkConfig',
    ],
    [
      l.FINALITY_DEPTH_DEFAULT >= 1 && l.FINALITY_DEPTH_DEFAULT <= l.FINALITY_DEPTH_MAX,
      'FINALITY_DEPTH_DEFAULT <= FINALITY_DEPTH_MAX: the default configuration passes checkConfig',
    ],
    [
      l.CONFIRMATION_DEPTH_DEFAULT <= l.FINALITY_DEPTH_DEFAULT,
      'CONFIRMATION_DEPTH_DEFAULT <= FINALITY_DEPTH_DEFAULT: an effect is confirmed before it is final',
    ],
    [
      l.FILL_TAGS_PER_LEG_MAX === l.MATCH_FILLS_MAX,
      "FILL_TAGS_PER_LEG_MAX = MATCH_FILLS_MAX: a leg's tags fill the circuit's fill slots (the rest are 0)",
    ],
    [
      l.LOCKS_PER_REQUEST_MAX >= 2 && l.LOCKS_PER_REQUEST_MAX >= l.BATCH_LEGS_MAX,
      'LOCKS_PER_REQUEST_MAX >= BATCH_LEGS_MAX: one request locks a match (two notes) or a whole batch',
    ],
    [
      l.LOCK_SLOTS_MAX >= l.ORDER_LIFETIME_SLOTS_MAX,
      'LOCK_SLOTS_MAX >= ORDER_LIFETIME_SLOTS_MAX: a note may stay locked for the whole life of its order',
    ],
    [
      l.MARKETS_MAX >= l.PROTOCOL_MARKETS_MAX,
      'MARKETS_MAX >= the protocol MARKETS_MAX: the chain holds every market the venue may list',
    ],
    [
      l.TREE_UPDATE_LEAVES_MAX >= l.LEAVES_PAGE_MAX && l.TREE_PAGES_PER_SHARD_MAX >= 1,
      'TREE_UPDATE_LEAVES_MAX >= LEAVES_PAGE_MAX: one getTreeUpdates answer carries at least a full page',
    ],
  ];
  return relations.filter(([holds]) => !holds).map(([, relation]) => relation);
}

/** Asserts every relation between the chain's limits; a chain is never built with one broken. */
export function checkChainLimitRelations(limits: ChainLimits = CHAIN_LIMITS): void {
  const broken = brokenChainLimitRelations(limits);
  assert(broken.length === 0, `chain limits: ${broken.join('; ')}`);
}

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

/**
 * How long the RPC server keeps an idle connection: well above any HTTP client's own idle timeout
 * (undici's is 4 s), so that the client is the side that closes it (rpc-server.ts).
 */
export const RPC_KEEP_ALIVE_MS = 65_000;
