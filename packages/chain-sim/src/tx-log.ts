import { assert } from '@venue/protocol';
import { TX_LOG_ENTRIES_MAX } from './limits.ts';
import type { Hex32, SettlementRecord } from './types.ts';

/**
 * The chain's memory of settlement transactions, as an RPC node keeps transaction statuses: by
 * tx_id, and by (market, batch_seq) for the attempts at each sequence number. It is not ledger
 * state: a failed transaction changed nothing, and a landed one rolled back by a reorg is dropped
 * from here. Bounded: the oldest entries are forgotten first.
 */
export class TxLog {
  private readonly byId = new Map<Hex32, SettlementRecord>();
  private readonly byBatch = new Map<string, Hex32[]>();

  get(txId: Hex32): SettlementRecord | undefined {
    return this.byId.get(txId);
  }

  put(record: SettlementRecord): void {
    const key = batchKey(record.market_id, record.batch_seq);
    if (!this.byId.has(record.tx_id)) {
      this.byBatch.set(key, [...(this.byBatch.get(key) ?? []), record.tx_id]);
    }
    this.byId.set(record.tx_id, record);
    while (this.byId.size > TX_LOG_ENTRIES_MAX) {
      const oldest = this.byId.keys().next().value;
      assert(oldest !== undefined, 'a non-empty log has an oldest entry');
      this.drop(oldest);
    }
  }

  drop(txId: Hex32): void {
    const record = this.byId.get(txId);
    if (record === undefined) return;
    this.byId.delete(txId);
    const key = batchKey(record.market_id, record.batch_seq);
    const rest = (this.byBatch.get(key) ?? []).filter((id) => id !== txId);
    if (rest.length === 0) this.byBatch.delete(key);
    else this.byBatch.set(key, rest);
  }

  /** The attempt that landed at this sequence number, else the latest attempt. */
  forBatch(marketId: string, batchSeq: bigint): SettlementRecord | undefined {
    const records = (this.byBatch.get(batchKey(marketId, batchSeq)) ?? [])
      .map((id) => this.byId.get(id))
      .filter((record): record is SettlementRecord => record !== undefined);
    return records.find((record) => record.state === 'landed') ?? records.at(-1);
  }

  landedAfter(slot: bigint): SettlementRecord[] {
    return [...this.byId.values()].filter(
      (record) => record.state === 'landed' && (record.included_slot ?? 0n) > slot,
    );
  }
}

function batchKey(marketId: string, batchSeq: bigint): string {
  return `${marketId}:${batchSeq}`;
}
