// Issue 20 soak: the note openings the enclave keeps for settlement (settlement/note-openings.ts)
// used to stay for every order ever booked, until a 1,000,000-entry cap. An order cancelled or
// expired leaves its note backing nothing, so its opening goes; a modify that keeps the note, a
// reprice in place and a snapshot's save and load keep exactly what is still needed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Command, CoreEvent } from '@venue/core';
import { orderBody, placeCommand } from '@venue/testing';
import type { JournalRecord } from '../src/journal/index.ts';
import { NoteOpenings } from '../src/settlement/note-openings.ts';

const NO_ANNOTATIONS = {};

function record(command: Command): JournalRecord {
  return { command, annotations: NO_ANNOTATIONS } as JournalRecord;
}

function ended(orderId: string, kind: 'cancelled' | 'expired' | 'fully_filled'): CoreEvent {
  return { type: 'order', accountId: 'acct-a', orderId, marketId: 'm', kind, slot: 1n };
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

test('a cancelled or expired order’s note opening goes; a filled one’s is left to the pipeline', () => {
  const openings = new NoteOpenings();
  const a = orderBody({ id: 1, note: 'a' });
  const b = orderBody({ id: 2, note: 'b' });
  const c = orderBody({ id: 3, note: 'c' });
  for (const order of [a, b, c]) openings.follow(record(placeCommand(order, 0n)), []);
  assert.equal(openings.size, 3);
  openings.follow(record(cancel(a.order_id)), [ended(a.order_id, 'cancelled')]);
  openings.follow(record({ type: 'tick', slot: 2000n }), [ended(b.order_id, 'expired')]);
  openings.follow(record({ type: 'tick', slot: 2001n }), [ended(c.order_id, 'fully_filled')]);
  assert.equal(openings.get(a.note_commitment), undefined);
  assert.equal(openings.get(b.note_commitment), undefined);
  assert.ok(openings.get(c.note_commitment) !== undefined);
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
