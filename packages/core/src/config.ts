import { assert, ORDER_LIFETIME_SLOTS_MAX } from '@venue/protocol';

/**
 * What the core is told at construction: limits and the one function it cannot compute itself
 * (the note commitment hash, owned by the notes package). Everything here is a parameter, so the
 * simulator can run the core with other values.
 */
export interface CoreConfig {
  /** Valid tree_id values are 0 to treeCount - 1. */
  readonly treeCount: number;
  /** expiry_slot must be at least this far ahead of the current slot (spec 8). */
  readonly settlementBufferSlots: bigint;
  /** expiry_slot may be at most this far ahead (spec 8: 4,500). */
  readonly orderLifetimeSlotsMax: bigint;
  /** A matched note is locked on chain this many slots after its batch. */
  readonly lockDurationSlots: bigint;
  /**
   * Finished orders stay readable this many slots after they end; their ids stay taken (and their
   * bodies refused with 1211) until that and their expiry_slot have both passed.
   */
  readonly retentionSlots: bigint;
  /** Most open orders per account (protocol ACCOUNT_OPEN_ORDERS_MAX). */
  readonly accountOpenOrdersMax: number;
  /** Most roots kept per shard window. */
  readonly rootWindowMax: number;
  /**
   * Re-derives a note commitment from the owner commitment, the amount-independent inner hash and
   * the value the order claims the note holds (spec 2.1 owner_commitment).
   */
  readonly noteCommitment: (ownerCommitment: string, innerHash: string, value: bigint) => string;
  /**
   * A batch over a book that cannot cross is answered from the price levels' resting totals
   * without reading the book (batch/quiet-batch.ts); default on. Off, every batch runs the full
   * auction: the same events and state, which tests check by running both, and the benchmark's
   * baseline.
   */
  readonly quietBookShortcut?: boolean;
}

export function assertCoreConfig(config: CoreConfig): void {
  assert(config.treeCount >= 1 && config.treeCount <= 256, 'treeCount must be 1 to 256');
  assert(config.settlementBufferSlots >= 1n, 'settlementBufferSlots must be positive');
  assert(
    config.orderLifetimeSlotsMax > config.settlementBufferSlots &&
      config.orderLifetimeSlotsMax <= ORDER_LIFETIME_SLOTS_MAX,
    'orderLifetimeSlotsMax must exceed the buffer and stay within the protocol maximum',
  );
  assert(config.lockDurationSlots >= 1n, 'lockDurationSlots must be positive');
  assert(config.retentionSlots >= 1n, 'retentionSlots must be positive');
  assert(config.accountOpenOrdersMax >= 1, 'accountOpenOrdersMax must be positive');
  assert(config.rootWindowMax >= 1, 'rootWindowMax must be positive');
}
