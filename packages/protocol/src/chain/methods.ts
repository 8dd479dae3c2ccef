import Type, { type Static, type TSchema } from 'typebox';
import { BYTES } from '../limits.ts';
import { SETTLEMENT_FAILURE_REASONS } from '../schema/account.ts';
import { Base58Address, Hex, Nullable, OneOf, Strict, U8, U64 } from '../schema/primitives.ts';
import {
  InclusionProofResponseSchema,
  LEAVES_PAGE_MAX,
  LeavesResponseSchema,
  SettlementStatusResponseSchema,
  TreeRootsResponseSchema,
} from '../schema/tree.ts';
import {
  ChainInfoSchema,
  ConsumedEntrySchema,
  GovernanceViewSchema,
  LockAccountSchema,
  MarketAccountSchema,
  MarketParamsSchema,
  MergeReceiptSchema,
  MintAccountSchema,
  NoteReceiptSchema,
  OracleAccountSchema,
  OracleUpdateRequestSchema,
  RootEntrySchema,
  SlotInfoSchema,
  WithdrawReceiptSchema,
} from './accounts.ts';
import type { ChainStatic } from './frozen.ts';
import { ADVANCE_SLOTS_MAX, STALL_TICKS_MAX } from './limits.ts';
import { MintOrAsset } from './primitives.ts';
import {
  DepositRequestSchema,
  GovernanceRequestSchema,
  LockRequestSchema,
  MergeRequestSchema,
  WithdrawRequestSchema,
} from './requests.ts';
import { SettlementBatchSchema, SettlementRecordSchema } from './settlement.ts';
import {
  SettlementViewRequestSchema,
  SettlementViewSchema,
  TreeUpdatesRequestSchema,
  TreeUpdatesSchema,
} from './views.ts';

/**
 * The chain's JSON-RPC methods (docs/chain-sim.md section 11): each name with the schema of its
 * params (one object) and of its result. This table is the only place a method is declared: the
 * simulator's server answers exactly these (its handler table is typed by it), and the venue's and
 * the SDK's clients build requests and read replies through it (rpc.ts).
 */

const Hash = () => Hex(BYTES.hash);
const NONE = Strict({});

function method<P extends TSchema, R extends TSchema>(params: P, result: R) {
  return { params, result };
}

const between = (minimum: number, maximum: number) =>
  Type.Integer({ minimum, maximum, 'x-expected': `an integer from ${minimum} to ${maximum}` });

const Dropped = Strict({ dropped: Type.Array(Hash(), { description: 'Settlement transactions dropped.' }) });

export const CHAIN_METHODS = {
  getChainInfo: method(NONE, ChainInfoSchema),
  // slots and reorgs
  getSlot: method(NONE, SlotInfoSchema),
  advance: method(Strict({ count: Type.Optional(between(0, ADVANCE_SLOTS_MAX)) }), SlotInfoSchema),
  rollbackTo: method(Strict({ slot: U64() }), Dropped),
  reorg: method(Strict({ depth: U64() }), Dropped),
  getStateHash: method(NONE, Strict({ state_hash: Hash(), slot: U64() })),

  // trees (the protocol's own shapes, so the venue serves them as they are)
  getRoots: method(NONE, TreeRootsResponseSchema),
  getRootWindow: method(
    Strict({ tree_id: U8() }),
    Strict({ tree_id: U8(), roots: Type.Array(RootEntrySchema) }),
  ),
  getInclusion: method(Strict({ tree_id: U8(), commitment: Hash() }), InclusionProofResponseSchema),
  getLeaves: method(
    Strict({ tree_id: U8(), from: U64(), limit: Type.Optional(between(1, LEAVES_PAGE_MAX)) }),
    LeavesResponseSchema,
  ),
  getSettlementStatus: method(
    Strict({
      tx_id: Type.Optional(Hash()),
      market_id: Type.Optional(Base58Address()),
      batch_seq: Type.Optional(U64()),
    }),
    SettlementStatusResponseSchema,
  ),
  getSettlement: method(Strict({ tx_id: Hash() }), Nullable(SettlementRecordSchema)),
  getSettlementView: method(SettlementViewRequestSchema, SettlementViewSchema),
  getTreeUpdates: method(TreeUpdatesRequestSchema, TreeUpdatesSchema),

  // notes, locks, settlement
  deposit: method(DepositRequestSchema, NoteReceiptSchema),
  withdraw: method(WithdrawRequestSchema, WithdrawReceiptSchema),
  merge: method(MergeRequestSchema, MergeReceiptSchema),
  getConsumed: method(Strict({ note_use_tag: Hash() }), Nullable(ConsumedEntrySchema)),
  lockNotes: method(LockRequestSchema, Strict({ locks: Type.Array(LockAccountSchema) })),
  getLock: method(Strict({ note_use_tag: Hash() }), Nullable(LockAccountSchema)),
  submitSettlement: method(Strict({ batch: SettlementBatchSchema }), SettlementRecordSchema),

  // accounts
  createMarket: method(MarketParamsSchema, MarketAccountSchema),
  getMarket: method(Strict({ market_id: Base58Address() }), MarketAccountSchema),
  listMarkets: method(NONE, Strict({ markets: Type.Array(MarketAccountSchema) })),
  createMint: method(MintAccountSchema, MintAccountSchema),
  listMints: method(NONE, Strict({ mints: Type.Array(MintAccountSchema) })),
  updateOracle: method(OracleUpdateRequestSchema, OracleAccountSchema),
  getOracle: method(Strict({ address: Base58Address() }), OracleAccountSchema),
  getGovernance: method(NONE, GovernanceViewSchema),
  proposeGovernance: method(GovernanceRequestSchema, GovernanceViewSchema),
  audit: method(
    NONE,
    Strict({
      mints: Type.Array(
        Strict({
          mint: MintOrAsset(),
          vault: U64(),
          notes: U64({ description: 'Value of the unconsumed notes whose opening the chain holds.' }),
          hidden: Type.Integer({
            minimum: 0,
            description:
              'Unconsumed notes held as bare commitments (settlement outputs): value unknown here.',
          }),
        }),
      ),
    }),
  ),

  // faults (docs/chain-sim.md section 7)
  faultFailNextSettlement: method(
    Strict({ reason: OneOf(SETTLEMENT_FAILURE_REASONS), market_id: Type.Optional(Base58Address()) }),
    NONE,
  ),
  faultDelayNextSettlement: method(Strict({ slots: U64(), market_id: Type.Optional(Base58Address()) }), NONE),
  faultExpireRoot: method(Strict({ tree_id: U8(), root: Hash() }), NONE),
  faultRevertLock: method(Strict({ note_use_tag: Hash() }), NONE),
  faultStallSlots: method(Strict({ ticks: Type.Optional(between(1, STALL_TICKS_MAX)) }), NONE),
  faultResumeSlots: method(NONE, NONE),
} as const;

export type ChainMethod = keyof typeof CHAIN_METHODS;
export type ChainParams<M extends ChainMethod> = ChainStatic<(typeof CHAIN_METHODS)[M]['params']>;
/** A decoded result: a fresh value the caller owns (so mutable, like the protocol's own responses). */
export type ChainResult<M extends ChainMethod> = Static<(typeof CHAIN_METHODS)[M]['result']>;
/** What a server answers with: it may hand out read-only state it holds. */
export type ChainAnswer<M extends ChainMethod> = ChainStatic<(typeof CHAIN_METHODS)[M]['result']>;

export const CHAIN_METHOD_NAMES = Object.keys(CHAIN_METHODS) as readonly ChainMethod[];

export function isChainMethod(name: string): name is ChainMethod {
  return Object.hasOwn(CHAIN_METHODS, name);
}

/** What a server answers each method with, given its context (the simulator, for chain-sim). */
export type ChainHandlers<Context> = {
  readonly [M in ChainMethod]: (context: Context, params: ChainParams<M>) => ChainAnswer<M>;
};
