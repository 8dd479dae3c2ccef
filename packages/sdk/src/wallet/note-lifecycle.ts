/**
 * The life of one wallet note, as a small explicit state machine (spec 3.2, seen from the owner):
 *
 *   pending ──leaf seen──▶ spendable ──reserve(order)──▶ reserved ──fill──▶ spent
 *      ▲                      ▲  │                          │
 *      └──────release─────────┴──┼──────────────────────────┘ (order ended, note not consumed)
 *                                └──withdraw / merge──▶ spent
 *
 * - pending: the wallet holds the opening, but the commitment is not (yet) a leaf it has seen:
 *   a deposit on its way, or a note a settlement created.
 * - spendable: a leaf of the public tree and free; it may back one new order.
 * - reserved: backs one order (`reserved_by`) from before its first send until the order ends.
 *   A partial fill's change note is born reserved, possibly before its leaf is seen: the remainder
 *   of the order rests on it (spec 3.1 partially_filled, spec 8 one order per note), so it is not
 *   the owner's to spend while the order lives.
 * - spent: consumed on chain by a fill, a withdraw or a merge. Kept, so a repeated report of the
 *   same event finds it and changes nothing.
 * A spendable note may carry `withdraw_to` while a withdraw is in flight (sent, no answer yet or
 * the answer lost): it stays spendable, because the chain may not have taken it, but it backs no
 * order until the chain says which (NoteWallet.resolveWithdrawals, or a repeated withdrawVia).
 * Every transition is a pure function here; the wallet (note-wallet.ts) records the results.
 */

export type NoteStatus = 'pending' | 'spendable' | 'reserved' | 'spent';

/** Which settled match created a note, and as what: the change of the spent note or what was bought. */
export interface NoteOrigin {
  readonly order_id: string;
  readonly match_id: bigint;
  readonly role: 'change' | 'received';
}

/** One note the wallet holds the opening of. */
export interface WalletNote {
  readonly commitment: string;
  readonly tree_id: number;
  readonly mint: string;
  readonly value: bigint;
  readonly blinding: string;
  readonly inner_hash: string;
  /** Set once the wallet has seen the commitment as a leaf of the public tree. */
  readonly leaf_index?: bigint;
  readonly status: NoteStatus;
  /** The order this note backs while reserved. */
  readonly reserved_by?: string;
  /** The settlement output this note is (absent for a deposit). */
  readonly origin?: NoteOrigin;
  /** The order and match that consumed it, when a fill did. */
  readonly spent_by?: { readonly order_id: string; readonly match_id: bigint };
  /**
   * After `settlement_failed` the chain keeps the note locked until this slot (spec 3.1): it is
   * free again but may back a new order only after that slot.
   */
  readonly locked_until_slot?: bigint;
  /**
   * A withdraw of this note to this recipient was sent and its outcome is not known yet: usable by
   * no order until the chain tells whether it was consumed.
   */
  readonly withdraw_to?: string;
}

/** A transition the state machine does not allow: a programming error or a stale caller. */
export class NoteStateError extends Error {
  constructor(note: WalletNote, action: string) {
    super(`note ${note.commitment.slice(0, 16)}… is ${describe(note)}; it cannot be ${action}`);
    this.name = 'NoteStateError';
  }
}

function describe(note: WalletNote): string {
  if (note.status === 'reserved') return `reserved by order ${note.reserved_by}`;
  return note.withdraw_to === undefined ? note.status : `being withdrawn to ${note.withdraw_to}`;
}

/** The commitment is leaf `leafIndex` of its shard: a pending note becomes spendable. */
export function withLeaf(note: WalletNote, leafIndex: bigint): WalletNote {
  if (note.leaf_index !== undefined) return note;
  return { ...note, leaf_index: leafIndex, status: note.status === 'pending' ? 'spendable' : note.status };
}

/** The note backs `orderId` now (spec 3.2 spendable -> venue-reserved). */
export function reserveFor(note: WalletNote, orderId: string): WalletNote {
  if (note.status !== 'spendable' || note.withdraw_to !== undefined)
    throw new NoteStateError(note, `reserved for order ${orderId}`);
  return { ...note, status: 'reserved', reserved_by: orderId };
}

/**
 * The order the note backed ended without consuming it (cancelled, expired, refused, failed to
 * settle): free again, spendable if its leaf is known, else pending until the scan sees it.
 */
export function released(note: WalletNote, lockedUntilSlot?: bigint): WalletNote {
  if (note.status !== 'reserved') throw new NoteStateError(note, 'released');
  const { reserved_by: _, locked_until_slot: __, ...rest } = note;
  return {
    ...rest,
    status: note.leaf_index === undefined ? 'pending' : 'spendable',
    ...(lockedUntilSlot === undefined ? {} : { locked_until_slot: lockedUntilSlot }),
  };
}

/** The note moves from one order id to another (a modify that retires the old id, spec 4.1 rule 7). */
export function rebound(note: WalletNote, orderId: string): WalletNote {
  if (note.status !== 'reserved') throw new NoteStateError(note, `moved to order ${orderId}`);
  return { ...note, reserved_by: orderId };
}

/**
 * A fill consumed the note backing its order (spec 3.2 on-chain locked -> consumed). A reserved
 * change note may be consumed before its leaf was seen: the next match found it on chain.
 */
export function consumedByFill(note: WalletNote, orderId: string, matchId: bigint): WalletNote {
  if (note.status !== 'reserved' || note.reserved_by !== orderId) {
    throw new NoteStateError(note, `consumed by a fill of order ${orderId}`);
  }
  const { reserved_by: _, ...rest } = note;
  return { ...rest, status: 'spent', spent_by: { order_id: orderId, match_id: matchId } };
}

/** A withdraw or merge consumed a free note on chain (spec 3.2 spendable -> consumed). */
export function withdrawn(note: WalletNote): WalletNote {
  if (note.status !== 'spendable') throw new NoteStateError(note, 'withdrawn');
  const { withdraw_to: _, ...rest } = note;
  return { ...rest, status: 'spent' };
}

/**
 * A withdraw of the free note to `recipient` is about to be sent (recorded first, so a crash or a
 * lost reply leaves a note no order takes until the chain's answer is known). Sending again, to
 * the same or another recipient, is allowed: the chain consumes a note once.
 */
export function withdrawSent(note: WalletNote, recipient: string): WalletNote {
  if (note.status !== 'spendable') throw new NoteStateError(note, 'withdrawn');
  return { ...note, withdraw_to: recipient };
}

/** The chain did not consume the note (it refused the withdraw, or never saw it): usable again. */
export function withdrawCleared(note: WalletNote): WalletNote {
  if (note.withdraw_to === undefined) return note;
  const { withdraw_to: _, ...rest } = note;
  return rest;
}

/** Whether `note` may back a new order at `slot` (undefined: the slot is unknown, so no lock passes). */
export function isUsable(note: WalletNote, slot?: bigint): boolean {
  if (note.status !== 'spendable' || note.withdraw_to !== undefined) return false;
  if (note.locked_until_slot === undefined) return true;
  return slot !== undefined && slot > note.locked_until_slot;
}
