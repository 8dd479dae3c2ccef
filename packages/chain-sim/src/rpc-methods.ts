import { type SettlementFailureReason, settlementLookupOf } from '@venue/protocol';
import type { ChainSimulator } from './chain.ts';
import { reject } from './errors.ts';
import { SETTLEMENT_VIEW_KEYS_MAX } from './limits.ts';
import { treeReads } from './reads.ts';
import { treeUpdates } from './rpc-tree-updates.ts';
import type { MarketParams } from './types.ts';
import * as validate from './validate.ts';

/**
 * The JSON-RPC methods (docs/chain-sim.md section 8). Each mirrors an in-process call; params are
 * one object (already converted by fromJson), the result is any JSON-able value (bigint allowed).
 */
export type RpcMethod = (chain: ChainSimulator, params: Record<string, unknown>) => unknown;

const optionalAddress = (value: unknown, name: string): string | undefined =>
  value === undefined ? undefined : validate.address(value, name);

/**
 * What a remote settlement pipeline needs for one beat, read in one call and so at one slot:
 * slots, governance in force, every shard's current root, and the notes (consumed slot, lock),
 * transactions and markets (next batch number) it asked about. An unknown entry is null.
 */
function settlementView(chain: ChainSimulator, p: Record<string, unknown>) {
  const list = (name: string) =>
    p[name] === undefined ? [] : validate.list(p[name], name, 0, SETTLEMENT_VIEW_KEYS_MAX);
  const tags = list('tags').map((tag, i) => validate.hex32(tag, `tags[${i}]`));
  const txIds = list('tx_ids').map((id, i) => validate.hex32(id, `tx_ids[${i}]`));
  const marketIds = list('market_ids').map((id, i) => validate.address(id, `market_ids[${i}]`));
  if (tags.length + txIds.length + marketIds.length > SETTLEMENT_VIEW_KEYS_MAX)
    reject('bad_request', `at most ${SETTLEMENT_VIEW_KEYS_MAX} tags, tx_ids and market_ids together`);
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
    settlements: txIds.map((txId) => ({ tx_id: txId, record: chain.settlement(txId) ?? null })),
    markets: marketIds.map((marketId) => ({
      market_id: marketId,
      next_batch_seq: markets.get(marketId)?.next_batch_seq ?? null,
    })),
  };
}

export const RPC_METHODS: Readonly<Record<string, RpcMethod>> = {
  // slots and reorgs
  getSlot: (chain) => chain.slotInfo(),
  advance: (chain, p) => {
    chain.advance(p['count'] === undefined ? 1 : validate.int(p['count'], 'count', 0, 100_000));
    return chain.slotInfo();
  },
  rollbackTo: (chain, p) => ({ dropped: chain.rollbackTo(validate.u64(p['slot'], 'slot')) }),
  reorg: (chain, p) => ({ dropped: chain.reorg(validate.u64(p['depth'], 'depth')) }),
  getStateHash: (chain) => ({ state_hash: chain.stateHash(), slot: chain.slot }),

  // trees (protocol shapes)
  getRoots: (chain) => treeReads(chain).roots(),
  getRootWindow: (chain, p) => {
    const treeId = validate.int(p['tree_id'], 'tree_id', 0, 255);
    return { tree_id: treeId, roots: chain.rootWindow(treeId) };
  },
  getInclusion: (chain, p) =>
    treeReads(chain).inclusion(
      validate.int(p['tree_id'], 'tree_id', 0, 255),
      validate.hex32(p['commitment'], 'commitment'),
    ),
  getLeaves: (chain, p) =>
    treeReads(chain).leaves(
      validate.int(p['tree_id'], 'tree_id', 0, 255),
      validate.u64(p['from'], 'from'),
      p['limit'] === undefined ? 1000 : validate.int(p['limit'], 'limit', 1, 1000),
    ),
  getSettlementStatus: (chain, p) =>
    treeReads(chain).settlementStatus(
      settlementLookupOf({
        ...(p['tx_id'] === undefined ? {} : { tx_id: validate.hex32(p['tx_id'], 'tx_id') }),
        ...(p['market_id'] === undefined ? {} : { market_id: validate.address(p['market_id'], 'market_id') }),
        ...(p['batch_seq'] === undefined ? {} : { batch_seq: validate.u64(p['batch_seq'], 'batch_seq') }),
      }),
    ),
  getSettlement: (chain, p) => chain.settlement(validate.hex32(p['tx_id'], 'tx_id')) ?? null,
  getSettlementView: settlementView,
  getTreeUpdates: treeUpdates,

  // notes, locks, settlement
  deposit: (chain, p) => chain.deposit(p),
  withdraw: (chain, p) => chain.withdraw(p),
  merge: (chain, p) => chain.merge(p),
  getConsumed: (chain, p) => chain.consumedEntry(validate.hex32(p['note_use_tag'], 'note_use_tag')) ?? null,
  lockNotes: (chain, p) => ({ locks: chain.lockNotes(p) }),
  getLock: (chain, p) => chain.lock(validate.hex32(p['note_use_tag'], 'note_use_tag')) ?? null,
  submitSettlement: (chain, p) => chain.submitSettlement(p['batch']),

  // accounts
  createMarket: (chain, p) => chain.createMarket(p as unknown as MarketParams),
  getMarket: (chain, p) => chain.market(validate.address(p['market_id'], 'market_id')),
  listMarkets: (chain) => ({ markets: chain.markets() }),
  updateOracle: (chain, p) =>
    chain.updateOracle({
      address: validate.address(p['address'], 'address'),
      price: validate.u64(p['price'], 'price'),
      confidence: validate.u64(p['confidence'], 'confidence'),
    }),
  getOracle: (chain, p) => chain.oracle(validate.address(p['address'], 'address')),
  getGovernance: (chain) => chain.governance(),
  proposeGovernance: (chain, p) => chain.proposeGovernance(p),
  audit: (chain) => ({
    mints: [...chain.audit()].map(([mint, totals]) => ({ mint, vault: totals.vault, notes: totals.notes })),
  }),

  // faults
  faultFailNextSettlement: (chain, p) => {
    if (typeof p['reason'] !== 'string')
      reject('bad_request', 'reason: expected a settlement failure reason');
    chain.faults.failNextSettlement(
      p['reason'] as SettlementFailureReason,
      optionalAddress(p['market_id'], 'market_id'),
    );
    return {};
  },
  faultDelayNextSettlement: (chain, p) => {
    chain.faults.delayNextSettlement(
      validate.u64(p['slots'], 'slots'),
      optionalAddress(p['market_id'], 'market_id'),
    );
    return {};
  },
  faultExpireRoot: (chain, p) => {
    chain.faults.expireRoot(validate.int(p['tree_id'], 'tree_id', 0, 255), validate.hex32(p['root'], 'root'));
    return {};
  },
  faultRevertLock: (chain, p) => {
    chain.faults.revertLock(validate.hex32(p['note_use_tag'], 'note_use_tag'));
    return {};
  },
  faultStallSlots: (chain, p) => {
    chain.faults.stallSlots(
      p['ticks'] === undefined ? undefined : validate.int(p['ticks'], 'ticks', 1, 1_000_000),
    );
    return {};
  },
  faultResumeSlots: (chain) => {
    chain.faults.resumeSlots();
    return {};
  },
};
