/**
 * The order and note lifecycles of the core, rule by rule (spec 2.1, 3.1, 3.2, 4.1, 8; decisions
 * section 2): each intake refusal has its own code and changes nothing; matches, settlements,
 * cancels, modifies, expiry, ioc/fok and the disconnect sweep emit exactly the spec's events.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type Command,
  type CoreEvent,
  expandedEvents,
  matchEventsOf,
  orderEventsOf,
  VenueCore,
} from '@venue/core';
import { ERRORS, type ErrorName } from '@venue/protocol';
import {
  codeOf,
  hex32,
  type OrderSpec,
  orderBody,
  placeCommand,
  TEST_CORE_CONFIG,
  TEST_ROOT,
  TEST_SESSION,
  testMarket,
} from '@venue/testing';

const MARKET = testMarket('SOL-USDC');
const OTHER = testMarket('ETH-USDC');

function venue(): VenueCore {
  const core = new VenueCore(TEST_CORE_CONFIG);
  core.apply({ type: 'boot', sessionId: TEST_SESSION, slot: 0n });
  core.apply({ type: 'add_market', market: MARKET });
  core.apply({ type: 'add_market', market: OTHER });
  core.apply({ type: 'roots', treeId: 0, roots: [TEST_ROOT], slot: 0n });
  for (const m of [MARKET, OTHER])
    core.apply({ type: 'oracle_price', marketId: m.marketId, price: 1000n, slot: 0n });
  return core;
}

function place(
  core: VenueCore,
  spec: OrderSpec,
  accountId = 'acct-a',
  connectionId: string | null = null,
): CoreEvent[] {
  return core.apply(placeCommand(orderBody(spec), core.slot, accountId, connectionId));
}

function tick(core: VenueCore): CoreEvent[] {
  return core.apply({ type: 'tick', slot: core.slot + 1n });
}

const idOf = (id: number) => orderBody({ id }).order_id;

/** Applies a command expected to be refused; checks the code and that the state did not change. */
function refused(core: VenueCore, command: Command, name: ErrorName): void {
  const before = core.stateHash();
  assert.equal(
    codeOf(() => core.apply(command)),
    ERRORS[name].code,
    `expected ${name}`,
  );
  assert.equal(core.stateHash(), before, `${name}: a refused command changed the state`);
  core.validateInternalState();
}

describe('intake: each rule has its own code and a refusal changes nothing', () => {
  const cases: [string, OrderSpec, ErrorName, (core: VenueCore) => void][] = [
    ['unknown symbol', { id: 1, symbol: 'BTC-USDC' }, 'UNKNOWN_SYMBOL', () => {}],
    ['price off tick', { id: 1, price: 1005n }, 'PRICE_NOT_ON_TICK', () => {}],
    [
      'below minimum size',
      { id: 1, amount: 4n },
      'BELOW_MIN_SIZE',
      (c) => c.apply({ type: 'add_market', market: testMarket('BIG-USDC', { minSize: 5n }) }),
    ],
    ['expiry inside the settlement buffer', { id: 1, expiry: 9n }, 'EXPIRY_TOO_SOON', () => {}],
    ['expiry beyond 4500 slots', { id: 1, expiry: 4501n }, 'EXPIRY_TOO_FAR', () => {}],
    ['cost overflows u64', { id: 1, amount: 2n ** 63n, price: 2n ** 62n * 10n }, 'COST_OVERFLOW', () => {}],
    [
      'collateral below the nominal cost',
      { id: 1, amount: 100n, price: 1000n, collateral: 99n },
      'INSUFFICIENT_COLLATERAL',
      () => {},
    ],
  ];
  for (const [name, spec, code, setup] of cases) {
    test(`${name} -> ${code}`, () => {
      const core = venue();
      setup(core);
      const body = orderBody(code === 'BELOW_MIN_SIZE' ? { ...spec, symbol: 'BIG-USDC' } : spec);
      refused(core, placeCommand(body, core.slot), code);
    });
  }

  test('stale session, tree out of range, unknown root, commitment mismatch', () => {
    const core = venue();
    refused(
      core,
      placeCommand({ ...orderBody({ id: 1 }), session_id: 'ee'.repeat(32) }, 0n),
      'STALE_SESSION',
    );
    refused(core, placeCommand({ ...orderBody({ id: 1 }), tree_id: 4 }, 0n), 'TREE_ID_OUT_OF_RANGE');
    refused(
      core,
      placeCommand({ ...orderBody({ id: 1 }), merkle_root: hex32('old root') }, 0n),
      'UNKNOWN_MERKLE_ROOT',
    );
    refused(
      core,
      placeCommand({ ...orderBody({ id: 1 }), note_inner_hash: hex32('other') }, 0n),
      'NOTE_COMMITMENT_MISMATCH',
    );
  });

  test('duplicate order id, note in use, stale arrival nonce', () => {
    const core = venue();
    place(core, { id: 1, nonce: 5n });
    refused(
      core,
      placeCommand({ ...orderBody({ id: 2, nonce: 6n }), order_id: idOf(1) }, 0n),
      'DUPLICATE_ORDER_ID',
    );
    refused(core, placeCommand(orderBody({ id: 3, nonce: 7n, note: '1' }), 0n), 'NOTE_IN_USE');
    refused(core, placeCommand(orderBody({ id: 4, nonce: 5n }), 0n), 'STALE_ARRIVAL_NONCE');
  });

  test('market and venue pauses refuse new orders', () => {
    const core = venue();
    core.apply({ type: 'market_gate', marketId: MARKET.marketId, pausedReason: 'oracle_stale', slot: 0n });
    refused(core, placeCommand(orderBody({ id: 1 }), 0n), 'MARKET_PAUSED');
    place(core, { id: 2, symbol: 'ETH-USDC' });
    core.apply({ type: 'venue_gate', pauseReasons: ['attestation_mismatch'], slot: 0n });
    refused(core, placeCommand(orderBody({ id: 3, symbol: 'ETH-USDC' }), 0n), 'TRADING_PAUSED');
  });

  test('an account at its open-order limit is refused', () => {
    const core = new VenueCore({ ...TEST_CORE_CONFIG, accountOpenOrdersMax: 2 });
    core.apply({ type: 'boot', sessionId: TEST_SESSION, slot: 0n });
    core.apply({ type: 'add_market', market: MARKET });
    core.apply({ type: 'roots', treeId: 0, roots: [TEST_ROOT], slot: 0n });
    place(core, { id: 1 });
    place(core, { id: 2 });
    refused(core, placeCommand(orderBody({ id: 3 }), 0n), 'OPEN_ORDER_LIMIT');
  });

  test('the exact same signed body again returns the first answer and changes nothing', () => {
    const core = venue();
    const command = placeCommand(orderBody({ id: 1 }), 0n);
    const first = core.apply(command);
    const hash = core.stateHash();
    const again = core.apply(command);
    assert.deepEqual(again, [{ ...first[0], repeat: true }]);
    assert.equal(core.stateHash(), hash);
    // another account sending the same bytes is not a repeat: it is a duplicate id
    refused(core, { ...command, accountId: 'acct-b' }, 'DUPLICATE_ORDER_ID');
  });
});

describe('matching and settlement', () => {
  test('orders wait for the next batch; crossing orders then match at one price', () => {
    const core = venue();
    place(core, { id: 1, side: 'bid', amount: 100n, price: 1010n, key: 'k1' });
    place(core, { id: 2, side: 'ask', amount: 100n, price: 990n, key: 'k2' });
    assert.equal(core.orderRecord(idOf(1), 'acct-a').state, 'resting', 'nothing matches on arrival');
    const events = tick(core);
    const pending = orderEventsOf(events);
    assert.deepEqual(
      pending.map((e) => [e.orderId, e.kind]),
      [
        [idOf(1), 'pending_settlement'],
        [idOf(2), 'pending_settlement'],
      ],
    );
    const matches = matchEventsOf(events);
    assert.equal(matches.length, 2);
    const price = matches[0]?.type === 'match' ? matches[0].clearingPrice : -1n;
    assert.ok(price === 990n || price === 1010n || price === 1000n, `uniform price ${price}`);
    for (const m of matches) if (m.type === 'match') assert.equal(m.clearingPrice, price);
    core.validateInternalState();
  });

  test('a pending order persists its reservation, not its batch: a snapshot does not grow with the batch', () => {
    // The reservation is the batch's match event (D120); the snapshot keeps its four state fields.
    const pendingOf = (core: VenueCore) => {
      const saved = JSON.parse(core.snapshot()) as { state: { orders: { pending: object | null }[] } };
      return saved.state.orders.map((row) => row.pending).filter((p) => p !== null);
    };
    const sizes: number[] = [];
    for (const pairs of [1, 40]) {
      const core = venue();
      for (let i = 0; i < pairs; i += 1) {
        place(core, { id: 2 * i + 1, side: 'bid', amount: 10n, price: 1010n, key: `b${i}` }, `acct-b${i}`);
        place(core, { id: 2 * i + 2, side: 'ask', amount: 10n, price: 990n, key: `a${i}` }, `acct-a${i}`);
      }
      tick(core);
      const pending = pendingOf(core);
      assert.equal(pending.length, 2 * pairs);
      for (const reservation of pending)
        assert.deepEqual(Object.keys(reservation), [
          'matchId',
          'baseQuantity',
          'quoteAmount',
          'lockExpirySlot',
        ]);
      assert.equal(VenueCore.restore(TEST_CORE_CONFIG, core.snapshot()).stateHash(), core.stateHash());
      sizes.push(core.snapshot().length / (2 * pairs));
    }
    const [one, forty] = sizes as [number, number];
    assert.ok(forty < one * 1.5, `bytes per order: ${one} with one pair, ${forty} with forty`);
  });

  test('a full fill ends the order; a partial fill rests the remainder on its change note', () => {
    const core = venue();
    place(core, { id: 1, side: 'bid', amount: 100n, price: 1000n, key: 'k1' });
    place(core, { id: 2, side: 'ask', amount: 40n, price: 1000n, key: 'k2' });
    const matches = matchEventsOf(tick(core));
    const bid = matches.find((m) => m.orderId === idOf(1));
    const ask = matches.find((m) => m.orderId === idOf(2));
    assert.ok(bid?.type === 'match' && ask?.type === 'match');
    assert.equal(bid.baseQuantity, 40n);
    assert.equal(bid.quoteAmount, 40n);
    const change = { commitment: hex32('change-1'), value: bid.noteValue - bid.quoteAmount, treeId: 0 };
    const bidEvents = orderEventsOf(
      core.apply({
        type: 'match_settled',
        marketId: MARKET.marketId,
        matchId: bid.matchId,
        changeNote: change,
        slot: core.slot,
      }),
    );
    assert.deepEqual(
      bidEvents.map((e) => [e.kind, e.filledQuantity, e.newAmount, e.newNoteAmount]),
      [['partially_filled', 40n, 60n, 60n]],
    );
    const askEvents = orderEventsOf(
      core.apply({
        type: 'match_settled',
        marketId: MARKET.marketId,
        matchId: ask.matchId,
        changeNote: null,
        slot: core.slot,
      }),
    );
    assert.deepEqual(
      askEvents.map((e) => [e.kind, e.filledQuantity]),
      [['fully_filled', 40n]],
    );
    const record = core.orderRecord(idOf(1), 'acct-a');
    assert.equal(record.state, 'partially_filled');
    assert.equal(record.remaining_amount, 60n);
    assert.equal(record.note_commitment, change.commitment);
    core.validateInternalState();
  });

  test('a failed settlement is terminal, and the note is reusable only after the lock expiry', () => {
    const core = venue();
    place(core, { id: 1, side: 'bid', amount: 10n, price: 1000n, key: 'k1' });
    place(core, { id: 2, side: 'ask', amount: 10n, price: 1000n, key: 'k2' });
    const match = matchEventsOf(tick(core)).find((e) => e.orderId === idOf(1));
    assert.ok(match?.type === 'match');
    const [failed] = orderEventsOf(
      core.apply({
        type: 'match_failed',
        marketId: MARKET.marketId,
        matchId: match.matchId,
        reason: 'root_expired',
        slot: core.slot,
      }),
    );
    assert.equal(failed?.kind, 'settlement_failed');
    assert.equal(failed?.reason, 'root_expired');
    assert.equal(failed?.lockExpirySlot, match.lockExpirySlot);
    const reuse = (id: number) =>
      placeCommand(
        orderBody({ id, note: '1', key: 'k1', nonce: BigInt(id), amount: 10n, price: 1000n, expiry: 2000n }),
        core.slot,
      );
    refused(core, reuse(3), 'NOTE_IN_USE');
    while (core.slot <= match.lockExpirySlot) tick(core);
    core.apply(reuse(4));
    assert.equal(core.orderRecord(idOf(4), 'acct-a').state, 'resting');
  });

  test('a pending order cannot be cancelled and takes no part in further batches', () => {
    const core = venue();
    place(core, { id: 1, side: 'bid', amount: 10n, price: 1000n, key: 'k1' });
    place(core, { id: 2, side: 'ask', amount: 10n, price: 1000n, key: 'k2' });
    tick(core);
    place(core, { id: 3, side: 'ask', amount: 10n, price: 1000n, key: 'k3' });
    const next = tick(core);
    assert.equal(matchEventsOf(next).length, 0);
    const cancel: Command = {
      type: 'cancel',
      orderId: idOf(1),
      params: {
        trading_key: hex32('key-k1'),
        cancel_nonce: 1n,
        session_id: TEST_SESSION,
        trading_key_signature: '00'.repeat(64),
      },
      accountId: 'acct-a',
      slot: core.slot,
    };
    refused(core, cancel, 'ORDER_NOT_RESTING');
  });

  test('two orders of one trading key never match each other', () => {
    const core = venue();
    place(core, { id: 1, side: 'bid', amount: 10n, price: 1000n, key: 'same' });
    place(core, { id: 2, side: 'ask', amount: 10n, price: 1000n, key: 'same' });
    assert.equal(matchEventsOf(tick(core)).length, 0);
  });
});

describe('cancel, modify, expiry, ioc, fok, disconnect', () => {
  const cancelOf = (
    core: VenueCore,
    id: number,
    nonce: bigint,
    key = 'k1',
    accountId = 'acct-a',
  ): Command => ({
    type: 'cancel',
    orderId: idOf(id),
    params: {
      trading_key: hex32(`key-${key}`),
      cancel_nonce: nonce,
      session_id: TEST_SESSION,
      trading_key_signature: '00'.repeat(64),
    },
    accountId,
    slot: core.slot,
  });

  test('the owner cancels; another key, another account and a stale nonce are refused', () => {
    const core = venue();
    place(core, { id: 1 });
    refused(core, cancelOf(core, 1, 1n, 'k2'), 'NOT_ORDER_OWNER');
    refused(core, cancelOf(core, 1, 1n, 'k1', 'acct-b'), 'ORDER_NOT_FOUND');
    const events = core.apply(cancelOf(core, 1, 5n));
    assert.deepEqual(
      orderEventsOf(events).map((e) => [e.kind, e.cancelReason]),
      [['cancelled', 'owner']],
    );
    place(core, { id: 2, nonce: 10n });
    refused(core, cancelOf(core, 2, 5n), 'STALE_CANCEL_NONCE');
  });

  function modifyOf(core: VenueCore, oldId: number, replacement: OrderSpec, cancelNonce: bigint): Command {
    return {
      type: 'modify',
      oldOrderId: idOf(oldId),
      request: {
        cancel_signature: '00'.repeat(64),
        cancel_nonce: cancelNonce,
        replacement: orderBody(replacement),
      },
      replacementDigest: hex32(`replacement-${replacement.id}-${replacement.price}`),
      accountId: 'acct-a',
      connectionId: null,
      slot: core.slot,
    };
  }

  test('a repeat answers as the first time only while its order lives: once finished it is 1211', () => {
    const core = venue();
    const command = placeCommand(orderBody({ id: 1, nonce: 1n }), core.slot);
    core.apply(command);
    core.apply(cancelOf(core, 1, 1n));
    // "accepted" would claim a booking that is gone (issue 20 finding 6a).
    refused(core, command, 'ORDER_FINISHED');
    // The same for a modify whose replacement has since been cancelled.
    place(core, { id: 2, nonce: 2n });
    const modify = modifyOf(core, 2, { id: 3, price: 990n, nonce: 3n, note: '3' }, 2n);
    core.apply(modify);
    core.apply(cancelOf(core, 3, 3n));
    refused(core, modify, 'ORDER_FINISHED');
  });

  test('modify with a new id retires the old one; with the same id it reprices in place', () => {
    const core = venue();
    place(core, { id: 1, price: 1000n, nonce: 1n });
    const events = core.apply(modifyOf(core, 1, { id: 2, price: 990n, nonce: 2n, note: '1' }, 1n));
    assert.deepEqual(
      orderEventsOf(events).map((e) => [e.orderId, e.kind]),
      [[idOf(1), 'cancelled']],
    );
    assert.equal(core.orderRecord(idOf(2), 'acct-a').price_limit, 990n);
    const same = core.apply(modifyOf(core, 2, { id: 2, price: 980n, nonce: 3n, note: '1' }, 2n));
    assert.equal(orderEventsOf(same).length, 0, 'a reprice in place emits no event');
    assert.equal(core.orderRecord(idOf(2), 'acct-a').price_limit, 980n);
    core.validateInternalState();
  });

  test('modify preconditions: cross-market, booked replacement id, pause: nothing changes', () => {
    const core = venue();
    place(core, { id: 1, nonce: 1n });
    place(core, { id: 2, nonce: 2n });
    refused(
      core,
      modifyOf(core, 1, { id: 3, symbol: 'ETH-USDC', nonce: 3n, note: '1' }, 1n),
      'CROSS_MARKET_MODIFY',
    );
    refused(core, modifyOf(core, 1, { id: 2, nonce: 3n, note: '1' }, 1n), 'DUPLICATE_ORDER_ID');
    core.apply({ type: 'market_gate', marketId: MARKET.marketId, pausedReason: 'circuit_breaker', slot: 0n });
    refused(core, modifyOf(core, 1, { id: 4, nonce: 3n, note: '1' }, 1n), 'MARKET_PAUSED');
    assert.equal(core.orderRecord(idOf(1), 'acct-a').state, 'resting');
  });

  test('an order expires in the slot after its expiry_slot', () => {
    const core = venue();
    place(core, { id: 1, expiry: 12n });
    while (core.slot < 12n) assert.equal(orderEventsOf(tick(core)).length, 0);
    assert.deepEqual(
      orderEventsOf(tick(core)).map((e) => e.kind),
      ['expired'],
    );
  });

  test('ioc and fok that find nothing in their arrival batch are cancelled', () => {
    const core = venue();
    place(core, { id: 1, type: 'ioc', key: 'k1' });
    place(core, { id: 2, type: 'fok', key: 'k2', nonce: 2n });
    const events = orderEventsOf(tick(core));
    assert.deepEqual(
      events.map((e) => [e.orderId, e.kind, e.cancelReason]),
      [
        [idOf(1), 'cancelled', 'ioc_remainder'],
        [idOf(2), 'cancelled', 'fok_unfilled'],
      ],
    );
  });

  test('a disconnect sweep cancels only that connection’s resting orders', () => {
    const core = venue();
    place(core, { id: 1, key: 'k1' }, 'acct-a', 'conn-1');
    place(core, { id: 2, key: 'k2', nonce: 2n }, 'acct-a', 'conn-2');
    const events = orderEventsOf(core.apply({ type: 'disconnect', connectionId: 'conn-1', slot: core.slot }));
    assert.deepEqual(
      events.map((e) => [e.orderId, e.kind, e.cancelReason]),
      [[idOf(1), 'cancelled', 'disconnect']],
    );
    assert.equal(core.orderRecord(idOf(2), 'acct-a').state, 'resting');
  });
});

describe('notes consumed on chain (spec 3.2)', () => {
  const noteOf = (spec: OrderSpec) => orderBody(spec).note_commitment;

  test('a resting order on a consumed note is cancelled; a pending one keeps its match', () => {
    const core = venue();
    const bid = { id: 1, side: 'bid' as const, amount: 100n, price: 1000n, key: 'k1' };
    place(core, bid);
    place(core, { id: 2, side: 'ask', amount: 40n, price: 1000n, key: 'k2' });
    tick(core);
    place(core, { id: 3, side: 'bid', amount: 10n, price: 900n, key: 'k3' });
    const events = core.apply({
      type: 'notes_consumed',
      noteCommitments: [
        noteOf(bid),
        noteOf({ id: 3, side: 'bid', amount: 10n, price: 900n, key: 'k3' }),
        hex32('x'),
      ],
      slot: core.slot,
    });
    assert.deepEqual(
      orderEventsOf(events).map((e) => [e.orderId, e.kind, e.cancelReason]),
      [[idOf(3), 'cancelled', 'note_consumed']],
    );
    assert.equal(core.orderRecord(idOf(3), 'acct-a').cancel_reason, 'note_consumed');
    assert.equal(core.orderRecord(idOf(1), 'acct-a').state, 'pending_settlement', 'its settlement decides');
    core.validateInternalState();
  });

  test('after a partial fill only the change note backs the order: the settled note is not it', () => {
    const core = venue();
    const bid = { id: 1, side: 'bid' as const, amount: 100n, price: 1000n, key: 'k1' };
    place(core, bid);
    place(core, { id: 2, side: 'ask', amount: 40n, price: 1000n, key: 'k2' });
    const match = matchEventsOf(tick(core)).find((e) => e.orderId === idOf(1));
    assert.ok(match?.type === 'match');
    const change = { commitment: hex32('change-1'), value: match.noteValue - match.quoteAmount, treeId: 0 };
    core.apply({
      type: 'match_settled',
      marketId: MARKET.marketId,
      matchId: match.matchId,
      changeNote: change,
      slot: core.slot,
    });
    // The settlement consumed the original note; the remainder rests on the change note.
    const settled = core.apply({ type: 'notes_consumed', noteCommitments: [noteOf(bid)], slot: core.slot });
    assert.deepEqual(settled, []);
    assert.equal(core.orderRecord(idOf(1), 'acct-a').state, 'partially_filled');
    const withdrawn = core.apply({
      type: 'notes_consumed',
      noteCommitments: [change.commitment],
      slot: core.slot,
    });
    assert.deepEqual(
      orderEventsOf(withdrawn).map((e) => [e.orderId, e.kind, e.cancelReason]),
      [[idOf(1), 'cancelled', 'note_consumed']],
    );
    assert.deepEqual(core.restingNoteCommitments(), []);
    core.validateInternalState();
  });

  test('restingNoteCommitments lists the notes of resting orders only', () => {
    const core = venue();
    place(core, { id: 1, side: 'bid', amount: 10n, price: 1000n, key: 'k1' });
    place(core, { id: 2, side: 'ask', amount: 10n, price: 1000n, key: 'k2' });
    tick(core);
    const resting = { id: 3, side: 'bid' as const, amount: 10n, price: 900n, key: 'k3' };
    place(core, resting);
    assert.deepEqual(core.restingNoteCommitments(), [noteOf(resting)]);
  });
});

test('a core restored from a snapshot replays the same commands to the same state and events', () => {
  const core = venue();
  place(core, { id: 1, side: 'bid', amount: 50n, price: 1000n, key: 'k1' });
  const restored = VenueCore.restore(TEST_CORE_CONFIG, core.snapshot());
  assert.equal(restored.stateHash(), core.stateHash());
  const commands: Command[] = [
    placeCommand(orderBody({ id: 2, side: 'ask', amount: 20n, price: 1000n, key: 'k2' }), 0n),
    { type: 'tick', slot: 1n },
    { type: 'tick', slot: 2n },
  ];
  for (const command of commands) {
    assert.deepEqual(expandedEvents(restored.apply(command)), expandedEvents(core.apply(command)));
  }
  assert.equal(restored.stateHash(), core.stateHash());
  assert.equal(restored.snapshot(), core.snapshot());
});
