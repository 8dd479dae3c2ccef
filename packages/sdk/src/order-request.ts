import type { OrderType, Side } from '@venue/protocol';
import type { NoteInput } from './note-wallet.ts';

/**
 * An order as a caller asks the Trader to place it. Its own file, because both the Trader and the
 * wallet's order notes (which the Trader uses) read it.
 */
export interface OrderRequest {
  readonly symbol: string;
  readonly side: Side;
  /** Default `limit`. */
  readonly type?: OrderType;
  readonly amount: bigint;
  readonly price: bigint;
  readonly minFillSize?: bigint;
  /** Slots from the venue's current slot to `expiry_slot` (default ORDER_LIFETIME_SLOTS_DEFAULT). */
  readonly lifetimeSlots?: bigint;
  /**
   * The note and proof backing the order. Omit it when the Trader has a wallet: the smallest
   * spendable note that covers the order is claimed and proved (needs `prover` on a proving venue).
   */
  readonly input?: NoteInput;
}
