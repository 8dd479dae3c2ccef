/**
 * The shortcut for books that cannot cross (batch/quiet-batch.ts) changes nothing a user can see.
 * Random histories over two markets (one clearing every slot, one every other slot) with limit, ioc
 * and fok orders inside and outside the oracle band, partial and failed settlements, expiries,
 * disconnect sweeps, oracle moves (and a lost oracle), pauses, repeated ticks of one slot (orders
 * that arrived in it take no part) and restores from snapshots. After every command:
 * - a core with the shortcut and one without return the same events (or the same refusal) and
 *   hold byte-identical states;
 * - the incrementally kept "can this book cross" answer equals one computed from scratch over the
 *   resting orders, and so do every level's resting count and base (validateInternalState);
 * and the histories really exercise both paths (batches answered by the shortcut, and batches that
 * cross, are counted).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Command, CoreEvent, MatchEvent } from '@venue/core';
import { expandedEvents, VenueCore } from '@venue/core';
import { VenueError } from '@venue/protocol';
import {
  hex32,
  orderBody,
  placeCommand,
  TEST_CORE_CONFIG,
  TEST_ROOT,
  TEST_SESSION,
  testMarket,
} from '@venue/testing';
import fc from 'fast-check';
import { cannotCross } from '../src/auction/quiet-book.ts';
import { restoreState } from '../src/state/snapshot.ts';
import { emptyState, type VenueState } from '../src/state/venue-state.ts';

const WITH = { ...TEST_CORE_CONFIG, retentionSlots: 1_000n, accountOpenOrdersMax: 50 };
const WITHOUT = { ...WITH, quietBookShortcut: false };
const MARKETS = [testMarket('SOL-USDC'), testMarket('ETH-USDC', { batchIntervalSlots: 2n })];

type Action =
  | {
      kind: 'place';
      market: number;
      bid: boolean;
      type: 'limit' | 'ioc' | 'fok';
      /**
       * Price in ticks of 10 above 800 (bids) or 960 (asks), up to 24: the sides overlap a little,
       * so books grow deep and cross now and then. The band is 900 to 1100 around an oracle of 1000.
       */
      tick: number;
      amount: number;
      minFill: number;
      key: number;
      expiry: number;
      conn: boolean;
    }
  | { kind: 'tick'; advance: number }
  | { kind: 'settle'; pick: number; fail: boolean }
  | { kind: 'oracle'; market: number; price: number | null }
  | { kind: 'pause'; market: number; on: boolean }
  | { kind: 'disconnect' }
  | { kind: 'restore' };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('place' as const),
      market: fc.nat(1),
      bid: fc.boolean(),
      type: fc.constantFrom(
        'limit' as const,
        'limit' as const,
        'limit' as const,
        'ioc' as const,
        'fok' as const,
      ),
      tick: fc.nat(24),
      amount: fc.integer({ min: 1, max: 60 }),
      minFill: fc.integer({ min: 0, max: 40 }),
      key: fc.nat(3),
      expiry: fc.integer({ min: 12, max: 200 }),
      conn: fc.nat(4).map((n) => n === 0),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('tick' as const), advance: fc.nat(2) }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), fail: fc.boolean() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('oracle' as const),
      market: fc.nat(1),
      price: fc.option(fc.integer({ min: 85, max: 115 }), { freq: 8 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('pause' as const), market: fc.nat(1), on: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'disconnect' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restore' as const }) },
);

interface Pending {
  readonly marketId: string;
  readonly matchId: bigint;
  readonly orderId: string;
  readonly side: 'bid' | 'ask';
  readonly base: bigint;
  readonly quote: bigint;
  readonly noteValue: bigint;
}

/** What a batch's outcome would be from scratch: the resting orders that arrived before `slot`. */
function scratchCannotCross(state: VenueState, marketIndex: number): boolean {
  const market = state.markets.get(MARKETS[marketIndex]?.marketId ?? '');
  assert.ok(market !== undefined);
  let bestBid: bigint | null = null;
  let bestAsk: bigint | null = null;
  for (const row of market.columns.liveRows()) {
    if (row.state !== 'resting') continue;
    if (row.side === 'bid' && (bestBid === null || row.priceLimit > bestBid)) bestBid = row.priceLimit;
    if (row.side === 'ask' && (bestAsk === null || row.priceLimit < bestAsk)) bestAsk = row.priceLimit;
  }
  return bestBid === null || bestAsk === null || bestBid < bestAsk;
}

function outcome(core: VenueCore, command: Command): CoreEvent[] | string {
  try {
    // Spelled out: a batch's record of matches holds the core's own rows, which differ between cores.
    return expandedEvents(core.apply(command));
  } catch (error) {
    if (error instanceof VenueError) {
      return `refused: ${error.code}`;
    }
    throw error;
  }
}

const seen = { quiet: 0, crossed: 0 };
/** States are compared after every tick and every few other commands (a snapshot costs). */
const STATE_EVERY = 5;

/**
 * Resting orders placed before the history, so books are deep enough for full shortlists and for
 * levels past the band on both ends: bids from 990 down, asks from 1010 up, a tick apart.
 */
function seedOrders(depth: number): Action[] {
  return Array.from({ length: 2 * depth }, (_, i) => ({
    kind: 'place' as const,
    market: (i >> 1) % 2,
    bid: i % 2 === 0,
    type: 'limit' as const,
    tick: i % 2 === 0 ? 19 - ((i >> 2) % 20) : 5 + ((i >> 2) % 20),
    amount: 1 + (i % 7),
    minFill: 0,
    key: i % 4,
    expiry: 500,
    conn: false,
  }));
}

function runHistory(actions: readonly Action[]): void {
  let state = emptyState();
  let fast = new VenueCore(WITH, state);
  const full = new VenueCore(WITHOUT);
  const setup: Command[] = [{ type: 'boot', sessionId: TEST_SESSION, slot: 0n }];
  for (const market of MARKETS) {
    setup.push({ type: 'add_market', market });
    setup.push({ type: 'oracle_price', marketId: market.marketId, price: 1000n, slot: 0n });
  }
  setup.push({ type: 'roots', treeId: 0, roots: [TEST_ROOT], slot: 0n });
  for (const command of setup) {
    fast.apply(command);
    full.apply(command);
  }
  const pending: Pending[] = [];
  const filled = new Map<string, { amount: bigint; filled: bigint }>();
  let slot = 0n;
  let id = 0;
  let connection = 0;
  let step = 0;
  for (const a of actions) {
    let command: Command | null = null;
    switch (a.kind) {
      case 'place': {
        id += 1;
        const market = MARKETS[a.market] ?? MARKETS[0];
        const amount = BigInt(a.amount);
        const body = orderBody({
          id,
          symbol: market?.symbol ?? 'SOL-USDC',
          side: a.bid ? 'bid' : 'ask',
          type: a.type,
          amount,
          price: BigInt((a.bid ? 80 : 96) + a.tick) * 10n,
          ...(a.minFill > 0 ? { minFill: BigInt(a.minFill) } : {}),
          key: `k${a.key}`,
          expiry: slot + BigInt(a.expiry),
        });
        filled.set(body.order_id, { amount, filled: 0n });
        command = placeCommand(body, slot, `acct-${a.key}`, a.conn ? `conn-${connection}` : null);
        break;
      }
      case 'tick':
        slot += BigInt(a.advance);
        command = { type: 'tick', slot };
        break;
      case 'settle': {
        const [target] = pending.splice(a.pick % Math.max(1, pending.length), 1);
        if (target === undefined) break;
        const order = filled.get(target.orderId);
        assert.ok(order !== undefined);
        if (a.fail) {
          command = {
            type: 'match_failed',
            marketId: target.marketId,
            matchId: target.matchId,
            reason: 'note_locked',
            slot,
          };
          break;
        }
        order.filled += target.base;
        const spent = target.side === 'bid' ? target.quote : target.base;
        const changeNote =
          order.filled < order.amount
            ? {
                commitment: hex32(`change-${target.marketId}-${target.matchId}`),
                value: target.noteValue - spent,
                treeId: 0,
              }
            : null;
        command = {
          type: 'match_settled',
          marketId: target.marketId,
          matchId: target.matchId,
          changeNote,
          slot,
        };
        break;
      }
      case 'oracle':
        command = {
          type: 'oracle_price',
          marketId: MARKETS[a.market]?.marketId ?? '',
          price: a.price === null ? null : BigInt(a.price) * 10n,
          slot,
        };
        break;
      case 'pause':
        command = {
          type: 'market_gate',
          marketId: MARKETS[a.market]?.marketId ?? '',
          pausedReason: a.on ? 'test' : null,
          slot,
        };
        break;
      case 'disconnect':
        command = { type: 'disconnect', connectionId: `conn-${connection}`, slot };
        connection += 1;
        break;
      case 'restore':
        state = restoreState(fast.snapshot());
        fast = new VenueCore(WITH, state);
        break;
    }
    if (command === null) continue;
    const quietBefore = MARKETS.map((_, index) => scratchCannotCross(state, index));
    const got = outcome(fast, command);
    const want = outcome(full, command);
    assert.deepStrictEqual(got, want, `the shortcut changed the answer to ${command.type}`);
    step += 1;
    if (step % STATE_EVERY === 0 || command.type === 'tick') {
      assert.equal(fast.snapshot(), full.snapshot(), `the shortcut changed the state after ${command.type}`);
    }
    fast.validateInternalState();
    MARKETS.forEach((market, index) => {
      const kept = state.markets.get(market.marketId);
      assert.ok(kept !== undefined);
      assert.equal(cannotCross(kept.bids, kept.asks), scratchCannotCross(state, index), 'can-cross is kept');
    });
    if (typeof got === 'string') continue;
    for (const event of got) {
      if (event.type === 'batch') {
        const index = MARKETS.findIndex((m) => m.marketId === event.marketId);
        if (quietBefore[index] === true) seen.quiet += 1;
        if (event.result.fills.length > 0) seen.crossed += 1;
      }
      if (event.type === 'match') pending.push(pendingOf(event));
    }
  }
}

function pendingOf(event: MatchEvent): Pending {
  return {
    marketId: event.marketId,
    matchId: event.matchId,
    orderId: event.orderId,
    side: event.side,
    base: event.baseQuantity,
    quote: event.quoteAmount,
    noteValue: event.noteValue,
  };
}

test('batches with and without the shortcut for books that cannot cross give the same events and state', () => {
  fc.assert(
    fc.property(fc.nat(60), fc.array(action, { minLength: 50, maxLength: 200 }), (depth, actions) =>
      runHistory([...seedOrders(depth), ...actions]),
    ),
    { numRuns: 60 },
  );
  // The histories must reach both kinds of batch, or the comparison proves little.
  assert.ok(seen.quiet > 200, `only ${seen.quiet} batches over books that cannot cross`);
  assert.ok(seen.crossed > 20, `only ${seen.crossed} batches that filled`);
});
