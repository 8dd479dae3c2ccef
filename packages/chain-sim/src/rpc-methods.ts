import {
  type ChainHandlers,
  SETTLEMENT_VIEW_KEYS_MAX,
  type SettlementRecord,
  type SettlementView,
  type SettlementViewRequest,
  settlementLookupOf,
} from '@venue/protocol';
import type { ChainSimulator } from './chain.ts';
import { reject } from './errors.ts';
import { treeReads } from './reads.ts';
import { treeUpdates } from './rpc-tree-updates.ts';

/**
 * What the simulator answers each JSON-RPC method with (docs/chain-sim.md section 11). The methods,
 * their params and their results are the chain contract's (packages/protocol/src/chain/methods.ts):
 * params arrive decoded, results leave through their schemas, and this table must name exactly
 * the contract's methods (its type says so). Each mirrors an in-process call.
 */

/**
 * What a remote settlement pipeline needs for one beat, read in one call and so at one slot:
 * slots, governance in force, every shard's current root, and the notes (consumed slot, lock),
 * transactions and markets (next batch number) it asked about. An unknown entry is null. A held
 * transaction's record comes without its leaves (the caller has them), after the others.
 */
function settlementView(chain: ChainSimulator, p: SettlementViewRequest): SettlementView {
  const tags = p.tags ?? [];
  const txIds = p.tx_ids ?? [];
  const heldTxIds = p.held_tx_ids ?? [];
  const marketIds = p.market_ids ?? [];
  if (tags.length + txIds.length + heldTxIds.length + marketIds.length > SETTLEMENT_VIEW_KEYS_MAX)
    reject(
      'bad_request',
      `at most ${SETTLEMENT_VIEW_KEYS_MAX} tags, tx_ids, held_tx_ids and market_ids together`,
    );
  const markets = new Map(chain.markets().map((market) => [market.market_id, market]));
  return {
    ...chain.slotInfo(),
    governance: chain.governanceValues(),
    roots: Array.from({ length: chain.shardCount }, (_, treeId) => chain.currentRoot(treeId).root),
    notes: tags.map((tag) => ({
      note_use_tag: tag,
      consumed_slot: chain.consumedEntry(tag)?.slot ?? null,
      lock: chain.lock(tag) ?? null,
    })),
    settlements: [
      ...txIds.map((txId) => ({ tx_id: txId, record: chain.settlement(txId) ?? null })),
      ...heldTxIds.map((txId) => ({ tx_id: txId, record: withoutLeaves(chain.settlement(txId)) })),
    ],
    markets: marketIds.map((marketId) => ({
      market_id: marketId,
      next_batch_seq: markets.get(marketId)?.next_batch_seq ?? null,
    })),
  };
}

/** A record as answered for a held transaction: everything but the leaves the caller holds. */
function withoutLeaves(record: SettlementRecord | undefined): SettlementRecord | null {
  if (record === undefined) return null;
  const { appended: _held, ...rest } = record;
  return rest;
}

export const RPC_METHODS: ChainHandlers<ChainSimulator> = {
  getChainInfo: (chain) => chain.info(),
  // slots and reorgs
  getSlot: (chain) => chain.slotInfo(),
  advance: (chain, p) => {
    chain.advance(p.count ?? 1);
    return chain.slotInfo();
  },
  rollbackTo: (chain, p) => ({ dropped: chain.rollbackTo(p.slot) }),
  reorg: (chain, p) => ({ dropped: chain.reorg(p.depth) }),
  getStateHash: (chain) => ({ state_hash: chain.stateHash(), slot: chain.slot }),

  // trees (protocol shapes)
  getRoots: (chain) => treeReads(chain).roots(),
  getRootWindow: (chain, p) => ({ tree_id: p.tree_id, roots: chain.rootWindow(p.tree_id) }),
  getInclusion: (chain, p) => treeReads(chain).inclusion(p.tree_id, p.commitment),
  getLeaves: (chain, p) => treeReads(chain).leaves(p.tree_id, p.from, p.limit ?? 1000),
  getSettlementStatus: (chain, p) => treeReads(chain).settlementStatus(settlementLookupOf(p)),
  getSettlement: (chain, p) => chain.settlement(p.tx_id) ?? null,
  getSettlementView: settlementView,
  getTreeUpdates: treeUpdates,

  // notes, locks, settlement
  deposit: (chain, p) => chain.deposit(p),
  withdraw: (chain, p) => chain.withdraw(p),
  merge: (chain, p) => chain.merge(p),
  getConsumed: (chain, p) => chain.consumedEntry(p.note_use_tag) ?? null,
  lockNotes: (chain, p) => ({ locks: chain.lockNotes(p) }),
  getLock: (chain, p) => chain.lock(p.note_use_tag) ?? null,
  submitSettlement: (chain, p) => chain.submitSettlement(p.batch),

  // accounts
  createMarket: (chain, p) => chain.createMarket(p),
  getMarket: (chain, p) => chain.market(p.market_id),
  listMarkets: (chain) => ({ markets: chain.markets() }),
  createMint: (chain, p) => chain.createMint(p),
  listMints: (chain) => ({ mints: chain.mints() }),
  updateOracle: (chain, p) => chain.updateOracle(p),
  getOracle: (chain, p) => chain.oracle(p.address),
  getGovernance: (chain) => chain.governance(),
  proposeGovernance: (chain, p) => chain.proposeGovernance(p),
  audit: (chain) => ({
    mints: [...chain.audit()].map(([mint, totals]) => ({
      mint,
      vault: totals.vault,
      notes: totals.notes,
      hidden: totals.hidden,
    })),
  }),

  // faults
  faultFailNextSettlement: (chain, p) => {
    chain.faults.failNextSettlement(p.reason, p.market_id);
    return {};
  },
  faultDelayNextSettlement: (chain, p) => {
    chain.faults.delayNextSettlement(p.slots, p.market_id);
    return {};
  },
  faultExpireRoot: (chain, p) => {
    chain.faults.expireRoot(p.tree_id, p.root);
    return {};
  },
  faultRevertLock: (chain, p) => {
    chain.faults.revertLock(p.note_use_tag);
    return {};
  },
  faultStallSlots: (chain, p) => {
    chain.faults.stallSlots(p.ticks);
    return {};
  },
  faultResumeSlots: (chain) => {
    chain.faults.resumeSlots();
    return {};
  },
};
