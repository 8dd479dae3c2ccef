/**
 * The dead-man timer of the core (lifecycle/dead-man.ts): armed, refreshed, disarmed and fired, its
 * refusals, its sweep of orders pending settlement, and a fast-check property that runs random
 * commands of three accounts against a plain model of the timers and checks, after every command:
 * the model and the core agree on every timer; no account whose deadline has come holds a resting
 * order; a core restored from a snapshot and a core replaying the command log from scratch answer
 * with the same events and end in the same state hash.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type Command,
  type CoreEvent,
  expandedEvents,
  type MatchEvent,
  matchEventsOf,
  type OrderEvent,
  VenueCore,
} from '@venue/core';
import { ERRORS } from '@venue/protocol';
import {
  codeOf,
  hex32,
  type OrderSpec,
  openingCommands,
  orderBody,
  placeCommand,
  TEST_CORE_CONFIG,
  testMarket,
} from '@venue/testing';
import fc from 'fast-check';

const MARKET = testMarket('SOL-USDC');
const CONFIG = { ...TEST_CORE_CONFIG, retentionSlots: 1_000_000n };

function venue(): VenueCore {
  const core = new VenueCore(CONFIG);
  for (const command of openingCommands()) core.apply(command);
  return core;
}

const place = (core: VenueCore, spec: OrderSpec, account = 'acct-a') =>
  core.apply(placeCommand(orderBody(spec), core.slot, account));
const arm = (core: VenueCore, timeoutSlots: bigint | null, accountId = 'acct-a') =>
  core.apply({ type: 'dead_man', accountId, timeoutSlots, slot: core.slot });
const tick = (core: VenueCore) => core.apply({ type: 'tick', slot: core.slot + 1n });
const idOf = (id: number) => orderBody({ id }).order_id;
const cancels = (events: CoreEvent[]) =>
  events
    .filter((e): e is OrderEvent => e.type === 'order' && e.kind === 'cancelled')
    .map((e) => [e.orderId, e.cancelReason]);

describe('dead-man timer', () => {
  test('armed: at the deadline slot, before its batch, every resting order of the account is cancelled', () => {
    const core = venue();
    place(core, { id: 1, side: 'bid', price: 1000n });
    place(core, { id: 2, side: 'bid', price: 900n, key: 'k2' });
    place(core, { id: 3, side: 'ask', price: 1000n, key: 'k3' }, 'acct-b');
    const [reply] = arm(core, 3n);
    assert.deepEqual(reply, {
      type: 'dead_man_reply',
      accountId: 'acct-a',
      response: { armed: true, timeout_slots: 3n, armed_slot: 0n, deadline_slot: 3n },
    });
    // The bid and the ask cross: without the timer they would match at slot 1.
    core.apply({ type: 'market_gate', marketId: MARKET.marketId, pausedReason: 'oracle_stale', slot: 0n });
    assert.deepEqual(cancels(tick(core)), []);
    assert.deepEqual(cancels(tick(core)), []);
    core.apply({ type: 'market_gate', marketId: MARKET.marketId, pausedReason: null, slot: core.slot });
    const fired = tick(core);
    assert.deepEqual(cancels(fired), [
      [idOf(1), 'dead_man'],
      [idOf(2), 'dead_man'],
    ]);
    assert.equal(matchEventsOf(fired).length, 0, 'no order of the account traded at its deadline');
    assert.equal(core.orderRecord(idOf(1), 'acct-a').cancel_reason, 'dead_man');
    assert.equal(core.orderRecord(idOf(3), 'acct-b').state, 'resting', 'other accounts are untouched');
    assert.deepEqual(core.deadMan('acct-a'), { armed: false }, 'a fired timer is disarmed');
    core.validateInternalState();
  });

  test('refreshed: each arm replaces the deadline; disarmed: nothing fires', () => {
    const core = venue();
    place(core, { id: 1, side: 'bid' });
    arm(core, 2n);
    tick(core);
    arm(core, 2n); // refresh at slot 1: deadline 3
    assert.deepEqual(cancels(tick(core)), []);
    assert.equal(core.deadMan('acct-a').deadline_slot, 3n);
    arm(core, null);
    for (let i = 0; i < 5; i += 1) assert.deepEqual(cancels(tick(core)), []);
    assert.equal(core.orderRecord(idOf(1), 'acct-a').state, 'resting');
    assert.deepEqual(arm(core, null)[0], {
      type: 'dead_man_reply',
      accountId: 'acct-a',
      response: { armed: false },
    });
  });

  test('a deadline passed during a gap in ticks fires at the first tick after it', () => {
    const core = venue();
    place(core, { id: 1, side: 'bid' });
    arm(core, 2n);
    const events = core.apply({ type: 'tick', slot: 50n });
    assert.deepEqual(cancels(events), [[idOf(1), 'dead_man']]);
  });

  test('bad timeouts are refused with their own codes and change nothing', () => {
    const core = venue();
    arm(core, 5n);
    const before = core.stateHash();
    assert.equal(
      codeOf(() => arm(core, 0n)),
      ERRORS.DEAD_MAN_TIMEOUT_ZERO.code,
    );
    assert.equal(
      codeOf(() => arm(core, 4501n)),
      ERRORS.DEAD_MAN_TIMEOUT_TOO_LONG.code,
    );
    assert.equal(core.stateHash(), before);
    assert.equal(
      codeOf(() => arm(core, 4500n)),
      'accepted',
    );
  });

  test('an order pending settlement keeps its match; its remainder is cancelled, not re-booked', () => {
    const core = venue();
    place(core, { id: 1, side: 'bid', amount: 100n, price: 1000n });
    place(core, { id: 2, side: 'ask', amount: 40n, price: 1000n, key: 'k2' }, 'acct-b');
    const matched = tick(core);
    const bid = matchEventsOf(matched).find((e) => e.orderId === idOf(1));
    assert.ok(bid !== undefined);
    arm(core, 1n);
    assert.deepEqual(cancels(tick(core)), [], 'nothing rests: the bid is pending settlement');
    const settled = core.apply({
      type: 'match_settled',
      marketId: MARKET.marketId,
      matchId: bid.matchId,
      changeNote: { commitment: hex32('change-1'), value: bid.noteValue - bid.quoteAmount, treeId: 0 },
      slot: core.slot,
    });
    assert.deepEqual(
      settled.filter((e): e is OrderEvent => e.type === 'order').map((e) => [e.kind, e.cancelReason]),
      [
        ['partially_filled', undefined],
        ['cancelled', 'dead_man'],
      ],
    );
    core.validateInternalState();
  });

  test('the timer is part of the snapshot and the state hash', () => {
    const core = venue();
    const unarmed = core.stateHash();
    arm(core, 7n);
    assert.notEqual(core.stateHash(), unarmed);
    const restored = VenueCore.restore(CONFIG, core.snapshot());
    assert.equal(restored.stateHash(), core.stateHash());
    assert.deepEqual(restored.deadMan('acct-a'), core.deadMan('acct-a'));
  });
});

// ---- Property: random commands against a model of the timers ----

const ACCOUNTS = ['acct-a', 'acct-b', 'acct-c'];

type Step =
  | { kind: 'place'; account: number; side: 'bid' | 'ask'; price: bigint; amount: bigint }
  | { kind: 'arm'; account: number; timeout: bigint }
  | { kind: 'disarm'; account: number }
  | { kind: 'tick'; slots: bigint }
  | { kind: 'settle' }
  | { kind: 'snapshot' };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('place' as const),
    account: fc.integer({ min: 0, max: 2 }),
    side: fc.constantFrom('bid' as const, 'ask' as const),
    price: fc.constantFrom(900n, 1000n, 1100n),
    amount: fc.constantFrom(10n, 50n),
  }),
  fc.record({
    kind: fc.constant('arm' as const),
    account: fc.integer({ min: 0, max: 2 }),
    timeout: fc.oneof(fc.bigInt({ min: 1n, max: 6n }), fc.constantFrom(0n, 4501n)),
  }),
  fc.record({ kind: fc.constant('disarm' as const), account: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant('tick' as const), slots: fc.bigInt({ min: 1n, max: 3n }) }),
  fc.record({ kind: fc.constant('settle' as const) }),
  fc.record({ kind: fc.constant('snapshot' as const) }),
);

test('property: timers follow the model, fire on time, and survive snapshot and replay', () => {
  let sweptTotal = 0;
  fc.assert(
    fc.property(fc.array(stepArbitrary, { minLength: 1, maxLength: 60 }), (steps) => {
      const core = venue();
      let restored = venue();
      const log: Command[] = openingCommands();
      const model = new Map<string, bigint>(); // account -> deadline slot
      const pending: MatchEvent[] = [];
      let nextId = 1;
      const run = (command: Command): CoreEvent[] | null => {
        let events: CoreEvent[] | null = null;
        const code = codeOf(() => {
          events = core.apply(command);
        });
        if (code !== 'accepted' || events === null) {
          assert.equal(
            codeOf(() => restored.apply(command)),
            code,
            'the restored core refuses alike',
          );
          return null;
        }
        log.push(command);
        assert.deepEqual(
          expandedEvents(restored.apply(command)),
          expandedEvents(events),
          `restored core answered ${command.type} alike`,
        );
        return events;
      };
      for (const step of steps) {
        const slot = core.slot;
        if (step.kind === 'place') {
          const id = nextId++;
          const account = ACCOUNTS[step.account] as string;
          run(
            placeCommand(
              orderBody({ id, side: step.side, price: step.price, amount: step.amount, key: `k${id}` }),
              slot,
              account,
            ),
          );
        } else if (step.kind === 'arm') {
          const account = ACCOUNTS[step.account] as string;
          const events = run({ type: 'dead_man', accountId: account, timeoutSlots: step.timeout, slot });
          const valid = step.timeout >= 1n && step.timeout <= 4500n;
          assert.equal(events !== null, valid, `timeout ${step.timeout} accepted iff 1..4500`);
          if (valid) model.set(account, slot + step.timeout);
        } else if (step.kind === 'disarm') {
          const account = ACCOUNTS[step.account] as string;
          run({ type: 'dead_man', accountId: account, timeoutSlots: null, slot });
          model.delete(account);
        } else if (step.kind === 'tick') {
          const events = run({ type: 'tick', slot: slot + step.slots }) ?? [];
          pending.push(...matchEventsOf(events));
          const fired = new Set<string>();
          for (const [account, deadline] of model) {
            if (deadline <= core.slot) fired.add(account);
          }
          for (const account of fired) {
            model.delete(account);
            // The invariant: an account whose deadline has come holds no resting order after the tick.
            for (const record of core.openOrders(account)) {
              assert.notEqual(record.state, 'resting', `order of ${account} still rests after its deadline`);
              assert.notEqual(record.state, 'partially_filled');
            }
          }
          for (const event of events) {
            if (event.type === 'order' && event.cancelReason === 'dead_man') {
              sweptTotal += 1;
              assert.ok(fired.has(event.accountId), 'only accounts whose deadline came are swept');
            }
          }
        } else if (step.kind === 'settle') {
          const match = pending.shift();
          if (match !== undefined && core.isPendingMatch(match.marketId, match.matchId)) {
            const left = match.noteValue - (match.side === 'bid' ? match.quoteAmount : match.baseQuantity);
            const record = core.orderRecord(match.orderId, match.accountId);
            const remainder = record.remaining_amount - match.baseQuantity;
            run({
              type: 'match_settled',
              marketId: match.marketId,
              matchId: match.matchId,
              changeNote:
                remainder === 0n
                  ? null
                  : { commitment: hex32(`change-${match.matchId}`), value: left, treeId: 0 },
              slot,
            });
          }
        } else {
          restored = VenueCore.restore(CONFIG, core.snapshot());
        }
        for (const [index, account] of ACCOUNTS.entries()) {
          const deadline = model.get(account);
          assert.deepEqual(
            core.deadMan(account).deadline_slot,
            deadline,
            `timer of account ${index} follows the model`,
          );
        }
        core.validateInternalState();
        assert.equal(restored.stateHash(), core.stateHash());
      }
      // Replaying the log from scratch gives the same state: the timer is counted in slots.
      const replayed = new VenueCore(CONFIG);
      for (const command of log) replayed.apply(command);
      assert.equal(replayed.stateHash(), core.stateHash());
    }),
    {
      numRuns: 150,
      // One run is sure to sweep a resting order, whatever the generator draws.
      examples: [
        [
          [
            { kind: 'place', account: 0, side: 'bid', price: 900n, amount: 10n },
            { kind: 'arm', account: 0, timeout: 2n },
            { kind: 'snapshot' },
            { kind: 'tick', slots: 3n },
          ],
        ],
      ],
    },
  );
  assert.ok(sweptTotal > 0, 'the runs exercised the sweep');
});
