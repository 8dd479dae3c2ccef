import type { TradingKey } from '@venue/protocol';
import type { ChainSimulator } from './chain.ts';
import { ChainError } from './errors.ts';
import { settlementTxId, signLockRequest, signSettlementBatch } from './messages.ts';
import type { SettlementLeg } from './types.ts';

/**
 * The simulator as the venue's settlement pipeline uses it (structurally the adapters'
 * `SettlementChain`, packages/adapters/src/settlement/settlement-chain.ts): locks and batches are
 * signed here with the enclave's settlement key, over the chain contract's canonical bytes.
 * `onBeat` fires on every slot and every reorg. A chain reached over JSON-RPC is the adapters'
 * `RemoteSettlementChain` (adapters/src/chain), which keeps a per-beat view.
 */
export function settlementChainOf(chain: ChainSimulator, signer: TradingKey) {
  return {
    get slot() {
      return chain.slot;
    },
    confirmationOf: (slot: bigint) => chain.confirmationOf(slot),
    nextBatchSeq: (marketId: string) => chain.market(marketId).next_batch_seq,
    lockNotes(marketId: string, locks: readonly { note_use_tag: string; expiry_slot: bigint }[]) {
      try {
        chain.lockNotes(signLockRequest({ market_id: marketId, locks, signer: signer.publicKey }, signer));
        return { ok: true as const };
      } catch (error) {
        if (error instanceof ChainError) return { ok: false as const, reason: error.reason as string };
        throw error;
      }
    },
    lock: (noteUseTag: string) => chain.lock(noteUseTag),
    consumedSlot: (noteUseTag: string) => chain.consumedEntry(noteUseTag)?.slot,
    sign(batch: {
      market_id: string;
      batch_seq: bigint;
      deadline_slot: bigint;
      match_count: number;
      legs: readonly SettlementLeg[];
    }) {
      const signed = signSettlementBatch({ ...batch, signer: signer.publicKey }, signer);
      return { ...signed, tx_id: settlementTxId(signed) };
    },
    submit(batch: { tx_id: string } & Parameters<typeof signSettlementBatch>[0] & { signature: string }) {
      const { tx_id: _txId, ...signed } = batch;
      chain.submitSettlement(signed);
    },
    settlement: (txId: string) => chain.settlement(txId),
    currentRoot: (treeId: number) => chain.currentRoot(treeId).root,
    leafIndex: (commitment: string) => chain.locate(commitment)?.leaf_index,
    onBeat(listener: () => void) {
      return chain.onEvent((event) => {
        if (event.kind === 'slot' || event.kind === 'reorg') listener();
      });
    },
    /** Notes a withdraw or merge consumed, told as it lands (the venue's consumed-note watch). */
    onConsumed(listener: (noteUseTags: readonly string[]) => void) {
      return chain.onEvent((event) => {
        if (event.kind === 'consumed') listener(event.note_use_tags);
      });
    },
  };
}
