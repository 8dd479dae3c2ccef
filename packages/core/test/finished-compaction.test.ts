/**
 * What the core keeps of a finished order (docs/core.md, "Repeats, retention and limits"): the full
 * row while it is readable (retentionSlots after it ended), then compact remains until its
 * expiry_slot has passed, then nothing. Checked against a small model on random runs: a re-sent
 * body is refused with 1211 for the whole window and never books anything, GET /orders/{id}
 * answers exactly while the order is readable, the id stays taken exactly as long as its body is
 * refused, the core keeps exactly the rows and remains the model expects (so memory per finished
 * order is bounded by the compact form after the readable window), and a snapshot restored at any
 * point continues to the same state hash as the core that was never stopped.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Command, type CoreConfig, type CoreEvent, VenueCore } from '@venue/core';
import { ERRORS } from '@venue/protocol';
import {
  codeOf,
  hex32,
  orderBody,
  placeCommand,
  TEST_CORE_CONFIG,
  TEST_ROOT,
  TEST_SESSION,
  testMarket,
} from '@venue/testing';
import fc from 'fast-check';

const RETENTION = 6n;
const CONFIG: CoreConfig = { ...TEST_CORE_CONFIG, retentionSlots: RETENTION };
const MARKET = testMarket('SOL-USDC');
const ACCOUNTS = ['acct-a', 'acct-b'];

function venue(): VenueCore {
  const core = new VenueCore(CONFIG);
  core.apply({ type: 'boot', sessionId: TEST_SESSION, slot: 0n });
  core.apply({ type: 'add_market', market: MARKET });
  core.apply({ type: 'roots', treeId: 0, roots: [TEST_ROOT], slot: 0n });
  core.apply({ type: 'oracle_price', marketId: MARKET.marketId, price: 1000n, slot: 0n });
  return core;
}

/** One accepted body, as the model follows it. */
interface Booked {
  readonly command: Command & { type: 'place' };
  readonly orderId: string;
  readonly account: number;
  readonly expiry: bigint;
  /** The slot its terminal event carried, or null while it lives. */
  end: bigint | null;
}

type Action =
  | { kind: 'place'; id: number; account: number; life: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'tick'; steps: number }
  | { kind: 'replay'; pick: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant('place' as const),
    id: fc.integer({ min: 1, max: 12 }),
    account: fc.integer({ min: 0, max: 1 }),
    // At least the settlement buffer (10 slots) ahead.
    life: fc.integer({ min: 10, max: 40 }),
  }),
  fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('tick' as const), steps: fc.integer({ min: 1, max: 9 }) }),
  fc.record({ kind: fc.constant('replay' as const), pick: fc.nat() }),
);

class Run {
  core = venue();
  /** The same commands, restored from its own snapshot every few steps. */
  twin = venue();
  readonly booked: Booked[] = [];
  readonly nonces = [0n, 0n];
  readonly cancelNonces = [0n, 0n];
  notes = 0;
  steps = 0;

  apply(command: Command): CoreEvent[] | number {
    let events: CoreEvent[] | number;
    const before = this.core.stateHash();
    try {
      events = this.core.apply(command);
    } catch (error) {
      const code = codeOf(() => {
        throw error;
      });
      assert.ok(typeof code === 'number');
      events = code;
      assert.equal(this.core.stateHash(), before, `refusal ${events} changed the state`);
    }
    try {
      this.twin.apply(command);
    } catch {
      // The twin refuses exactly when the core does: the hashes below compare the outcome.
    }
    this.steps += 1;
    if (this.steps % 5 === 0) this.twin = VenueCore.restore(CONFIG, this.twin.snapshot());
    assert.equal(this.twin.stateHash(), this.core.stateHash(), 'a restored core went another way');
    if (typeof events !== 'number') this.observe(events);
    this.core.validateInternalState();
    return events;
  }

  observe(events: CoreEvent[]): void {
    for (const event of events) {
      if (event.type !== 'order') continue;
      const booked = this.booked.find((b) => b.orderId === event.orderId && b.end === null);
      assert.ok(booked !== undefined, `event for unknown order ${event.orderId}`);
      booked.end = event.slot;
    }
  }

  /** The model: is a finished body still refused (and its id taken) at this slot? */
  refused(b: Booked): boolean {
    const slot = this.core.slot;
    return b.end !== null && (slot < b.end + RETENTION || slot <= b.expiry);
  }

  readable(b: Booked): boolean {
    return b.end === null || this.core.slot < b.end + RETENTION;
  }

  /** Only the latest booking of an id can still be known: an id is free again once its window ends. */
  current(): Booked[] {
    const latest = new Map<string, Booked>();
    for (const b of this.booked) latest.set(b.orderId, b);
    return [...latest.values()];
  }

  step(a: Action): void {
    const slot = this.core.slot;
    if (a.kind === 'tick') {
      this.apply({ type: 'tick', slot: slot + BigInt(a.steps) });
    } else if (a.kind === 'place') {
      this.place(a);
    } else if (a.kind === 'cancel') {
      const live = this.booked.filter((b) => b.end === null);
      const b = live[a.pick % Math.max(1, live.length)];
      if (b === undefined) return;
      this.cancelNonces[b.account] = (this.cancelNonces[b.account] ?? 0n) + 1n;
      this.apply({
        type: 'cancel',
        orderId: b.orderId,
        params: {
          trading_key: b.command.order.trading_key,
          cancel_nonce: this.cancelNonces[b.account] ?? 0n,
          session_id: TEST_SESSION,
          trading_key_signature: '00'.repeat(64),
        },
        accountId: ACCOUNTS[b.account] ?? '',
        slot,
      });
    } else {
      const b = this.booked[a.pick % Math.max(1, this.booked.length)];
      if (b === undefined) return;
      const answer = this.apply({ ...b.command, slot });
      const latest = this.current().includes(b);
      if (b.end === null) {
        assert.ok(typeof answer !== 'number', 'a live order’s repeat answers as the first time');
        return;
      }
      assert.equal(typeof answer, 'number', 'a finished order’s body booked again');
      if (latest && this.refused(b)) assert.equal(answer, ERRORS.ORDER_FINISHED.code, 'refused with 1211');
    }
    this.check();
  }

  place(a: Extract<Action, { kind: 'place' }>): void {
    const slot = this.core.slot;
    this.nonces[a.account] = (this.nonces[a.account] ?? 0n) + 1n;
    this.notes += 1;
    const body = orderBody({
      id: a.id,
      key: `k${a.account}`,
      nonce: this.nonces[a.account] ?? 0n,
      expiry: slot + BigInt(a.life),
      note: `n${this.notes}`,
    });
    const command = placeCommand(body, slot, ACCOUNTS[a.account]);
    const taken = this.current().find(
      (b) => b.orderId === body.order_id && (b.end === null || this.refused(b)),
    );
    const answer = this.apply(command);
    if (taken !== undefined) {
      assert.equal(answer, ERRORS.DUPLICATE_ORDER_ID.code, 'an id is taken while its body is refused');
      return;
    }
    assert.ok(typeof answer !== 'number', `a fresh id was refused with ${answer}`);
    this.booked.push({
      command,
      orderId: body.order_id,
      account: a.account,
      expiry: body.expiry_slot,
      end: null,
    });
  }

  /** GET /orders/{id} and the kept rows and remains agree with the model. */
  check(): void {
    let rows = 0;
    let compacted = 0;
    for (const b of this.current()) {
      const account = ACCOUNTS[b.account] ?? '';
      if (this.readable(b)) {
        rows += 1;
        const record = this.core.orderRecord(b.orderId, account);
        assert.equal(record.order_id, b.orderId);
      } else {
        assert.equal(
          codeOf(() => this.core.orderRecord(b.orderId, account)),
          ERRORS.ORDER_NOT_FOUND.code,
          'readable past its window',
        );
        if (this.refused(b)) compacted += 1;
      }
    }
    assert.deepEqual(this.core.retainedOrders(), { rows, compacted }, 'kept rows and remains');
  }
}

test('a finished body is refused for its whole window, readable for exactly its retention, then forgotten', () => {
  fc.assert(
    fc.property(fc.array(action, { minLength: 40, maxLength: 160 }), (actions) => {
      const run = new Run();
      for (const a of actions) run.step(a);
      // Run everything out: the last orders expire on the first tick and are forgotten on the second.
      run.apply({ type: 'tick', slot: run.core.slot + 60n });
      run.check();
      run.apply({ type: 'tick', slot: run.core.slot + RETENTION });
      run.check();
      assert.deepEqual(run.core.retainedOrders(), { rows: 0, compacted: 0 });
    }),
    { numRuns: 150 },
  );
});

test('compact remains hold a handful of short fields, not the order', () => {
  const core = venue();
  const body = orderBody({ id: 1, nonce: 1n, expiry: 200n });
  core.apply(placeCommand(body, core.slot));
  core.apply({
    type: 'cancel',
    orderId: body.order_id,
    params: {
      trading_key: body.trading_key,
      cancel_nonce: 1n,
      session_id: TEST_SESSION,
      trading_key_signature: '00'.repeat(64),
    },
    accountId: 'acct-a',
    slot: core.slot,
  });
  core.apply({ type: 'tick', slot: RETENTION });
  assert.deepEqual(core.retainedOrders(), { rows: 0, compacted: 1 });
  const saved = JSON.parse(core.snapshot()) as { state: { finished: [string, Record<string, unknown>][] } };
  const [entry] = saved.state.finished;
  assert.ok(entry !== undefined);
  assert.deepEqual(Object.keys(entry[1]), ['accountId', 'bodyDigest', 'state', 'until', 'lockedNote']);
  // 5 fields: the account, a 32-byte digest, the state, a slot and no note (it did not fail).
  assert.ok(JSON.stringify(entry).length < 220, `remains of ${JSON.stringify(entry).length} bytes`);
  assert.equal(entry[1]['state'], 'cancelled');
});

test('a modify whose replacement was compacted stays refused with 1211; its old id is gone', () => {
  const core = venue();
  const first = orderBody({ id: 1, nonce: 1n, expiry: 300n });
  core.apply(placeCommand(first, core.slot));
  const replacement = orderBody({ id: 2, nonce: 2n, expiry: 300n, price: 990n, note: '1' });
  const modify = (): Command => ({
    type: 'modify',
    oldOrderId: first.order_id,
    request: { cancel_signature: '00'.repeat(64), cancel_nonce: 1n, replacement },
    replacementDigest: hex32('replacement-2'),
    accountId: 'acct-a',
    connectionId: null,
    slot: core.slot,
  });
  core.apply(modify());
  core.apply({
    type: 'cancel',
    orderId: replacement.order_id,
    params: {
      trading_key: replacement.trading_key,
      cancel_nonce: 2n,
      session_id: TEST_SESSION,
      trading_key_signature: '00'.repeat(64),
    },
    accountId: 'acct-a',
    slot: core.slot,
  });
  core.apply({ type: 'tick', slot: 50n });
  assert.deepEqual(core.retainedOrders(), { rows: 0, compacted: 2 });
  const before = core.stateHash();
  assert.equal(
    codeOf(() => core.apply(modify())),
    ERRORS.ORDER_FINISHED.code,
  );
  assert.equal(core.stateHash(), before);
  assert.equal(
    codeOf(() => core.orderRecord(first.order_id, 'acct-a')),
    ERRORS.ORDER_NOT_FOUND.code,
  );
  // Past both expiries nothing is kept, and the old bodies fail on their own (expiry, nonces).
  core.apply({ type: 'tick', slot: 301n });
  assert.deepEqual(core.retainedOrders(), { rows: 0, compacted: 0 });
  assert.equal(
    codeOf(() => core.apply(placeCommand(first, core.slot))),
    ERRORS.EXPIRY_TOO_SOON.code,
  );
});
