// Issue 20: the note openings the enclave keeps for settlement (settlement/note-openings.ts) used to
// stay for every order ever booked, and for every change note settlement derived, until a
// 1,000,000-entry cap. An opening is now kept exactly while an open order rests on its note, so
// there are never more than open orders (ACCOUNT_OPEN_ORDERS_MAX per account): whatever ends an
// order drops its note's opening, a partial fill moves it to the change note, and a modify that
// keeps the note, a reprice in place and a snapshot's save and load keep exactly what is needed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Command, CoreEvent } from '@venue/core';
import type { PlaceOrder } from '@venue/protocol';
import { orderBody, placeCommand } from '@venue/testing';
import type { JournalRecord } from '../src/journal/index.ts';
import { NoteOpenings } from '../src/settlement/note-openings.ts';

const NO_ANNOTATIONS = {};

function record(command: Command): JournalRecord {
  return { command, annotations: NO_ANNOTATIONS } as JournalRecord;
}

type Kind = 'cancelled' | 'expired' | 'fully_filled' | 'settlement_failed' | 'partially_filled';

function ended(orderId: string, kind: Kind): CoreEvent {
  return { type: 'order', accountId: 'acct-a', orderId, marketId: 'm', kind, slot: 1n };
}

/** A `match_settled` record as the pipeline journals it, with the change note's opening if any. */
function settled(matchId: bigint, change: string | null): JournalRecord {
  const command: Command = {
    type: 'match_settled',
    marketId: 'm',
    matchId,
    changeNote: change === null ? null : { commitment: change, value: 5n, treeId: 0 },
    slot: 3n,
  };
  const annotations =
    change === null
      ? {}
      : {
          changeOpening: { commitment: change, ownerCommitment: 'ab'.repeat(32), innerHash: 'cd'.repeat(32) },
        };
  return { command, annotations } as JournalRecord;
}

function changeNote(n: number): string {
  return n.toString(16).padStart(64, '0');
}

function cancel(orderId: string): Command {
  return {
    type: 'cancel',
    orderId,
    params: {
      trading_key: '00'.repeat(32),
      cancel_nonce: 1n,
      session_id: '00'.repeat(32),
      trading_key_signature: '00'.repeat(64),
    },
    accountId: 'acct-a',
    slot: 0n,
  };
}

function modify(oldOrderId: string, replacement: ReturnType<typeof orderBody>): Command {
  return {
    type: 'modify',
    oldOrderId,
    request: { cancel_signature: '00'.repeat(64), cancel_nonce: 1n, replacement },
    replacementDigest: 'ab'.repeat(32),
    accountId: 'acct-a',
    connectionId: null,
    slot: 0n,
  };
}

test('whatever ends an order drops its note’s opening: cancel, expiry, fill, failed settlement', () => {
  const openings = new NoteOpenings();
  const [a, b, c, d, e] = [1, 2, 3, 4, 5].map((id) => orderBody({ id, note: `o${id}` })) as [
    PlaceOrder,
    PlaceOrder,
    PlaceOrder,
    PlaceOrder,
    PlaceOrder,
  ];
  for (const order of [a, b, c, d, e]) openings.follow(record(placeCommand(order, 0n)), []);
  assert.equal(openings.size, 5);
  openings.follow(record(cancel(a.order_id)), [ended(a.order_id, 'cancelled')]);
  openings.follow(record({ type: 'tick', slot: 2000n }), [ended(b.order_id, 'expired')]);
  // Replayed after a restart, a fill must drop the note: the pipeline's own forget is not journaled.
  openings.follow(settled(1n, null), [ended(c.order_id, 'fully_filled')]);
  openings.follow(
    record({
      type: 'match_failed',
      marketId: 'm',
      matchId: 2n,
      reason: 'proof_invalid',
      slot: 3n,
    } as Command),
    [ended(d.order_id, 'settlement_failed')],
  );
  for (const gone of [a, b, c, d]) assert.equal(openings.get(gone.note_commitment), undefined);
  assert.ok(openings.get(e.note_commitment) !== undefined, 'an open order keeps its opening');
  assert.equal(openings.size, 1);
});

test('a change note’s opening is kept only while the remainder rests on it', () => {
  const openings = new NoteOpenings();
  const order = orderBody({ id: 1, note: 'p' });
  openings.follow(record(placeCommand(order, 0n)), []);
  // A partial fill: the chain consumed the note, the remainder rests on the first change note.
  openings.follow(settled(1n, changeNote(1)), [ended(order.order_id, 'partially_filled')]);
  assert.equal(openings.get(order.note_commitment), undefined);
  assert.equal(openings.get(changeNote(1))?.derived, true);
  // Another partial fill moves it on, and the remainder's cancel drops the last change note.
  openings.follow(settled(2n, changeNote(2)), [ended(order.order_id, 'partially_filled')]);
  assert.equal(openings.get(changeNote(1)), undefined);
  openings.follow(record(cancel(order.order_id)), [ended(order.order_id, 'cancelled')]);
  assert.equal(openings.size, 0);
  // A fill that leaves change but ends the order (a bid's unused collateral, an ioc remainder)
  // keeps nothing: the owner spends that note with a proof of their own.
  const bid = orderBody({ id: 2, note: 'q' });
  openings.follow(record(placeCommand(bid, 0n)), []);
  openings.follow(settled(3n, changeNote(3)), [
    ended(bid.order_id, 'partially_filled'),
    ended(bid.order_id, 'cancelled'),
  ]);
  const filled = orderBody({ id: 3, note: 'r' });
  openings.follow(record(placeCommand(filled, 0n)), []);
  openings.follow(settled(4n, changeNote(4)), [ended(filled.order_id, 'fully_filled')]);
  assert.equal(openings.size, 0);
});

test('the openings never outnumber the open orders, however many orders come and go', () => {
  const openings = new NoteOpenings();
  const open: string[] = [];
  for (let i = 1; i <= 300; i += 1) {
    const order = orderBody({ id: i, note: `n${i}` });
    openings.follow(record(placeCommand(order, 0n)), []);
    open.push(order.order_id);
    if (i % 3 === 0) {
      openings.follow(settled(BigInt(i), changeNote(i)), [ended(order.order_id, 'partially_filled')]);
    }
    if (i % 2 === 0) {
      const gone = open.shift() as string;
      openings.follow(record(cancel(gone)), [ended(gone, 'cancelled')]);
    }
    assert.equal(openings.size, open.length);
  }
  // After a snapshot, the remainders resting on change notes still drop theirs when they end.
  const restored = new NoteOpenings();
  restored.load(JSON.parse(JSON.stringify(openings.save())));
  for (const id of open) restored.follow(record(cancel(id)), [ended(id, 'cancelled')]);
  assert.equal(restored.size, 0);
});

test('a modify onto the same note keeps its opening; a reprice onto another note drops the old one', () => {
  const openings = new NoteOpenings();
  // The same note: the same owner, inner hash and value (collateral covers both prices).
  const first = orderBody({ id: 1, note: 'n', collateral: 100n });
  openings.follow(record(placeCommand(first, 0n)), []);
  // New id, same note: the old order is cancelled in the same record as the replacement books.
  const replacement = orderBody({ id: 2, note: 'n', nonce: 2n, price: 990n, collateral: 100n });
  assert.equal(replacement.note_commitment, first.note_commitment);
  openings.follow(record(modify(first.order_id, replacement)), [ended(first.order_id, 'cancelled')]);
  assert.ok(openings.get(first.note_commitment) !== undefined, 'the replacement still needs the note');
  // Same id, another note: the old note is released.
  const repriced = orderBody({ id: 2, note: 'm', nonce: 3n, price: 980n });
  openings.follow(record(modify(replacement.order_id, repriced)), []);
  assert.equal(openings.get(first.note_commitment), undefined);
  assert.ok(openings.get(repriced.note_commitment) !== undefined);
  // A snapshot keeps which order holds the note: after a restore, its cancel still drops it.
  const restored = new NoteOpenings();
  restored.load(JSON.parse(JSON.stringify(openings.save())));
  assert.deepEqual(restored.save(), openings.save());
  restored.follow(record(cancel(repriced.order_id)), [ended(repriced.order_id, 'cancelled')]);
  assert.equal(restored.get(repriced.note_commitment), undefined);
  assert.equal(restored.size, 0);
});
