/**
 * Random venue histories for the snapshot replica's tests: places (all order types, some on a stream
 * connection, some over-collateralised), cancels, modifies (in place and to a new id), ticks that
 * clear batches, settlement outcomes (with a change note, and its opening annotated beside it, as
 * the pipeline journals them) and disconnect sweeps. Each action is turned into a journal record
 * against the current state of the core it will be applied to, so most of them are accepted.
 */
import { type JournalRecord, plainRecord } from '@venue/adapters';
import type { Command, VenueCore } from '@venue/core';
import type { PlaceOrder } from '@venue/protocol';
import { hex32, orderBody, placeCommand, TEST_SESSION } from '@venue/testing';
import fc from 'fast-check';

export type ReplicaAction =
  | {
      readonly kind: 'place';
      readonly side: 'bid' | 'ask';
      readonly key: number;
      readonly price: number;
      readonly amount: number;
      readonly type: 'limit' | 'ioc' | 'fok';
      readonly extra: number;
      readonly onStream: boolean;
    }
  | { readonly kind: 'cancel'; readonly pick: number }
  | { readonly kind: 'modify'; readonly pick: number; readonly price: number; readonly newId: boolean }
  | { readonly kind: 'tick'; readonly slots: number }
  | { readonly kind: 'settle'; readonly pick: number; readonly fail: boolean }
  | { readonly kind: 'disconnect' }
  | { readonly kind: 'snapshot' }
  | { readonly kind: 'restart' };

export const replicaAction: fc.Arbitrary<ReplicaAction> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('place' as const),
      side: fc.constantFrom('bid' as const, 'ask' as const),
      key: fc.integer({ min: 0, max: 3 }),
      price: fc.integer({ min: 0, max: 10 }),
      amount: fc.integer({ min: 1, max: 20 }),
      type: fc.constantFrom('limit' as const, 'limit' as const, 'ioc' as const, 'fok' as const),
      extra: fc.integer({ min: 0, max: 3 }),
      onStream: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('modify' as const),
      pick: fc.nat(),
      price: fc.integer({ min: 0, max: 10 }),
      newId: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('tick' as const), slots: fc.integer({ min: 1, max: 3 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), fail: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'disconnect' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'snapshot' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

const STREAM = 'conn-1';

/** Builds commands for a history; ids and nonces stay unique across the whole run. */
export class HistoryBuilder {
  #next = 1;
  readonly #placed: { id: number; key: number; order: PlaceOrder }[] = [];

  /** The record for `action` at the core's state, or null for actions that are not commands. */
  record(core: VenueCore, action: ReplicaAction): JournalRecord | null {
    if (action.kind === 'settle') return settlementOf(core, action.pick, action.fail);
    const command = this.#command(core, action);
    return command === null ? null : plainRecord(command);
  }

  #command(core: VenueCore, action: ReplicaAction): Command | null {
    const slot = core.slot;
    switch (action.kind) {
      case 'place': {
        const id = this.#next++;
        const order = this.#order(core, id, action.key, action.side, action.price, action.amount, {
          type: action.type,
          extra: action.extra,
        });
        this.#placed.push({ id, key: action.key, order });
        return placeCommand(order, slot, accountOf(action.key), action.onStream ? STREAM : null);
      }
      case 'cancel': {
        const target = this.#pick(action.pick);
        if (target === undefined) return null;
        return {
          type: 'cancel',
          orderId: target.order.order_id,
          params: {
            trading_key: target.order.trading_key,
            cancel_nonce: BigInt(this.#next++),
            session_id: TEST_SESSION,
            trading_key_signature: '00'.repeat(64),
          },
          accountId: accountOf(target.key),
          slot,
        };
      }
      case 'modify': {
        const target = this.#pick(action.pick);
        if (target === undefined) return null;
        const cancelNonce = BigInt(this.#next++);
        const id = action.newId ? this.#next++ : target.id;
        const replacement = this.#order(core, id, target.key, target.order.side, action.price, 5, {
          type: 'limit',
          extra: 0,
          fresh: this.#next++,
        });
        this.#placed.push({ id, key: target.key, order: replacement });
        return {
          type: 'modify',
          oldOrderId: target.order.order_id,
          request: { cancel_signature: '00'.repeat(64), cancel_nonce: cancelNonce, replacement },
          replacementDigest: hex32(`replacement-${id}-${cancelNonce}`),
          accountId: accountOf(target.key),
          connectionId: null,
          slot,
        };
      }
      case 'tick':
        return { type: 'tick', slot: slot + BigInt(action.slots) };
      case 'disconnect':
        return { type: 'disconnect', connectionId: STREAM, slot };
      default:
        return null;
    }
  }

  #pick(pick: number): { id: number; key: number; order: PlaceOrder } | undefined {
    return this.#placed.length === 0 ? undefined : this.#placed[pick % this.#placed.length];
  }

  #order(
    core: VenueCore,
    id: number,
    key: number,
    side: 'bid' | 'ask',
    price: number,
    amount: number,
    options: { type: 'limit' | 'ioc' | 'fok'; extra: number; fresh?: number },
  ): PlaceOrder {
    const priceLimit = 950n + BigInt(price) * 10n;
    const nominal = side === 'bid' ? (BigInt(amount) * priceLimit) / 1000n : BigInt(amount);
    return orderBody({
      id,
      side,
      type: options.type,
      key: `k${key}`,
      price: priceLimit,
      amount: BigInt(amount),
      nonce: BigInt(options.fresh ?? id),
      expiry: core.slot + 200n,
      note: `${id}-${options.fresh ?? 0}`,
      ...(options.extra === 0 ? {} : { collateral: nominal + BigInt(options.extra) }),
    });
  }
}

function accountOf(key: number): string {
  return `acct-k${key}`;
}

/**
 * A settlement outcome for one pending match, as the pipeline journals it: a confirmed match with a
 * remainder names the change note, and its record carries the change note's opening for NoteOpenings.
 */
function settlementOf(core: VenueCore, pick: number, fail: boolean): JournalRecord | null {
  const pending = core.pendingMatches();
  const match = pending[pick % Math.max(1, pending.length)];
  if (match === undefined) return null;
  const slot = core.slot;
  if (fail) {
    return plainRecord({
      type: 'match_failed',
      marketId: match.marketId,
      matchId: match.matchId,
      reason: 'note_locked',
      slot,
    });
  }
  const record = core.orderRecord(match.orderId, match.accountId);
  const remaining = record.remaining_amount - match.baseQuantity;
  if (remaining === 0n) {
    return plainRecord({
      type: 'match_settled',
      marketId: match.marketId,
      matchId: match.matchId,
      changeNote: null,
      slot,
    });
  }
  const commitment = hex32(`change-${match.marketId}-${match.matchId}`);
  return {
    command: {
      type: 'match_settled',
      marketId: match.marketId,
      matchId: match.matchId,
      changeNote: { commitment, value: match.note.value, treeId: match.note.treeId },
      slot,
    },
    annotations: {
      changeOpening: {
        commitment,
        ownerCommitment: match.ownerCommitment,
        innerHash: hex32(`inner-${commitment}`),
      },
    },
  };
}
