/**
 * A semantic pin for performance work on the core: one fixed, seeded sequence of about 5,000
 * commands over three markets (two of them with quantities beyond 2^53, so the bigint paths run),
 * covering every command kind, refusals, repeats, self-trades, all-or-none, ioc/fok, partial and
 * failed settlements, expiries, disconnects and gates. The final stateHash() and a digest of every
 * answer (events, or the refusal's code and message) are pinned to the values the core gave before
 * its hot paths were reworked. A change of behaviour anywhere on those paths changes one of the two.
 *
 * Self-contained on purpose (its own bodies, config and generator): a change in a shared fixture
 * must not move the pin. If the core's behaviour is meant to change, re-pin and say why in the
 * change.
 */
import assert from 'node:assert/strict';
import { createHash, type Hash } from 'node:crypto';
import { test } from 'node:test';
import {
  type Command,
  type CoreConfig,
  type CoreEvent,
  expandedEvents,
  type MarketConfig,
  plainBatchEvent,
  plainMatchEvent,
  VenueCore,
} from '@venue/core';
import { type PlaceOrder, VenueError } from '@venue/protocol';

// Re-pinned when finished orders became compact remains after their readable window (issue 20, soak
// memory): snapshot format 3 carries the remains, and rows leave at end + retention instead of
// max(end, expiry) + retention. Before it, 41993e2d.... Re-pinned when orders gained the latest
// batch that gave them nothing (issue 25), kept per row for batches that cleared and once per market
// (lastUncleared) for batches that did not, with resumedBatch on rows a settlement put back to
// resting: with those fields left out of the snapshot the hash is the compaction's 093bc4bf....
const PINNED_STATE_HASH = '4d0e4b1e509af94fa2849cb1e59ffa98e0f1bbdf22f2fd00338356f01e28d94f';
// Re-pinned when match events gained `fills` (issue 19): without that field the answers give the
// previous digest, c6a30f0e...; the state hash did not move. Re-pinned again when a repeat of a
// finished order's body became a 1211 refusal instead of `accepted` (issue 20 finding 6a): before it,
// 4eb28ea0...; the state hash did not move (neither answer changes anything). Re-pinned with the
// compaction above, before it ef10ba94...: 23 cancels and modifies of orders past their readable
// window now get 1300 (as GET /orders/{id} does) instead of 1205 (or a nonce code checked first),
// and one repeat past its order's expiry gets the pause refusal instead of 1211: still refused.
// Re-pinned for issue 25: batch events count participants and unfilled orders by reason, and an
// ioc/fok cancelled unfilled carries its reason; before it, 9526c223....
const PINNED_TRANSCRIPT_DIGEST = 'c5d90ac533ab8096558106f126e677ed9d18da15271ffc1dce67aa6928f04f9a';

const COMMANDS = 5_000;
const SESSION = 'ab'.repeat(32);
const ROOT = 'cd'.repeat(32);
const KEYS = 10;
const ACCOUNTS = 5;

function hex(label: string, bytes = 32): string {
  return createHash('sha256')
    .update(label)
    .digest('hex')
    .slice(0, bytes * 2);
}

function noteCommitment(owner: string, inner: string, value: bigint): string {
  return hex(`note|${owner}|${inner}|${value}`);
}

const CONFIG: CoreConfig = {
  treeCount: 2,
  settlementBufferSlots: 5n,
  orderLifetimeSlotsMax: 80n,
  lockDurationSlots: 6n,
  retentionSlots: 20n,
  accountOpenOrdersMax: 40,
  rootWindowMax: 3,
  noteCommitment,
};

function market(symbol: string, fields: Partial<MarketConfig>): MarketConfig {
  const id = hex(symbol, 16);
  return {
    symbol,
    marketId: id,
    baseMint: id,
    quoteMint: id,
    tickSize: 10n,
    minSize: 1n,
    priceScale: 1000n,
    oracleFeed: id,
    bandBps: 1000n,
    batchIntervalSlots: 1n,
    ...fields,
  };
}

/** Oracle prices start at `oracle`; limits are drawn around it in ticks. */
const MARKETS = [
  { config: market('AAA-USDC', {}), oracle: 1000n, amountMax: 60n },
  {
    config: market('BBB-USDC', { tickSize: 1n, priceScale: 1n, bandBps: 300n, batchIntervalSlots: 2n }),
    oracle: 100n,
    amountMax: 40n,
  },
  {
    // Quantities above 2^53: the auction's bigint walk and price sweep.
    config: market('CCC-USDC', {
      tickSize: 5n,
      minSize: 1000n,
      priceScale: 1_000_000_000n,
      batchIntervalSlots: 3n,
    }),
    oracle: 2000n,
    amountMax: 1n << 60n,
  },
];

/** A small linear congruential generator: the sequence must not depend on any library. */
class Seeded {
  #state: number;
  constructor(seed: number) {
    this.#state = seed;
  }
  next(): number {
    this.#state = (Math.imul(this.#state, 1103515245) + 12345) >>> 0;
    return this.#state / 2 ** 32;
  }
  below(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    const item = items[this.below(items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }
}

interface Placed {
  command: Extract<Command, { type: 'place' }>;
  key: number;
}

/** Writes a value with sorted keys and bigints marked, so object layout does not move the digest. */
function canonical(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/**
 * An event as the pinned transcript was written: a match event's lists spelled out (the event holds
 * its batch's pairing record instead, decisions D120), a batch's fills as objects (the batch
 * keeps them in columns, D133), so the digest still checks every fill, and each match event
 * preceded by the pending_settlement order event it stands for (D146: the list is expanded before
 * this), without the slot it carries for that event.
 */
function asPinned(event: CoreEvent): unknown {
  if (event.type === 'match') {
    const { slot: _slot, ...pinned } = plainMatchEvent(event);
    return pinned;
  }
  return event.type === 'batch' ? plainBatchEvent(event) : event;
}

class Scenario {
  readonly core = new VenueCore(CONFIG);
  readonly rng = new Seeded(20240611);
  readonly transcript: Hash = createHash('sha256');
  readonly seen = new Set<string>();
  readonly arrival = new Array<bigint>(KEYS).fill(0n);
  readonly cancel = new Array<bigint>(KEYS).fill(0n);
  readonly placed: Placed[] = [];
  readonly pending = new Map<
    string,
    {
      marketId: string;
      matchId: bigint;
      orderId: string;
      side: string;
      base: bigint;
      quote: bigint;
      noteValue: bigint;
    }
  >();
  readonly epochs = [0, 0, 0];
  readonly oracle = MARKETS.map((m) => m.oracle);
  readonly notes: { owner: string; inner: string; value: bigint }[] = [];
  counter = 0;

  /** Applies a command and adds its answer to the transcript; returns whether it was accepted. */
  run(command: Command): boolean {
    let answer: string;
    let accepted = false;
    try {
      const events = expandedEvents(this.core.apply(command));
      for (const event of events) this.note(event);
      answer = canonical(events.map(asPinned));
      accepted = true;
    } catch (error) {
      if (!(error instanceof VenueError)) throw error;
      this.seen.add(`refused:${error.code}`);
      answer = `refused ${error.code} ${error.message}`;
    }
    this.transcript.update(`${command.type}\n${answer}\n`);
    return accepted;
  }

  note(event: CoreEvent): void {
    if (event.type === 'order') this.seen.add(`order:${event.kind}`);
    else this.seen.add(event.type);
    if (event.type === 'placed' && event.repeat) this.seen.add('placed:repeat');
    if (event.type === 'batch') {
      if (event.result.fills.length > 0) this.seen.add(`filled:${event.marketId}`);
      for (const skip of event.result.skipped) this.seen.add(`skip:${skip.reason}`);
      if (event.result.decidedBy !== null) this.seen.add(`decided:${event.result.decidedBy}`);
    }
    if (event.type === 'match') {
      this.pending.set(`${event.marketId}/${event.matchId}`, {
        marketId: event.marketId,
        matchId: event.matchId,
        orderId: event.orderId,
        side: event.side,
        base: event.baseQuantity,
        quote: event.quoteAmount,
        noteValue: event.noteValue,
      });
    }
  }

  body(m: number, key: number): PlaceOrder {
    const { rng } = this;
    const spec = MARKETS[m] ?? MARKETS[0];
    if (spec === undefined) throw new Error('no market');
    const { config } = spec;
    this.counter += 1;
    const side = rng.chance(0.5) ? 'bid' : 'ask';
    const ticks = BigInt(rng.below(21) - 10);
    const oracle = this.oracle[m] ?? spec.oracle;
    let price = oracle + ticks * config.tickSize * (config.tickSize === 1n ? 1n : 2n);
    if (rng.chance(0.02)) price += 1n; // off tick
    if (side === 'ask' && rng.chance(0.05)) price = 0n; // any price
    if (side === 'bid' && price <= 0n) price = config.tickSize;
    const amount =
      spec.amountMax > 1n << 53n
        ? config.minSize + BigInt(Math.floor(rng.next() * 2 ** 40)) * BigInt(1 + rng.below(1 << 20))
        : 1n + BigInt(rng.below(Number(spec.amountMax)));
    const type = rng.pick(['limit', 'limit', 'limit', 'limit', 'ioc', 'fok'] as const);
    const owner = rng.chance(0.15) ? hex('owner-whale') : hex(`owner-${key}`);
    const nominal = side === 'bid' ? (amount * price) / config.priceScale : amount;
    // Now and then a recent note again (in use, locked, or free again), claiming its real value.
    const reused = rng.chance(0.08) && this.notes.length > 0 ? rng.pick(this.notes) : undefined;
    const inner = reused?.inner ?? hex(`inner-${this.counter}`);
    const noteOwner = reused?.owner ?? owner;
    const collateral =
      reused?.value ?? (rng.chance(0.1) ? (rng.chance(0.2) ? nominal / 2n : nominal + 7n) : undefined);
    const value = collateral ?? nominal;
    if (reused === undefined) {
      this.notes.push({ owner: noteOwner, inner, value });
      if (this.notes.length > 50) this.notes.shift();
    }
    const expiry = this.core.slot + BigInt(rng.chance(0.03) ? rng.pick([1, 4, 200]) : 6 + rng.below(40));
    const nonceStep = rng.chance(0.04) ? 0n : 1n;
    const body: PlaceOrder = {
      symbol: rng.chance(0.01) ? 'ZZZ-USDC' : config.symbol,
      side,
      order_type: type,
      amount,
      price_limit: price,
      expiry_slot: expiry,
      order_id:
        rng.chance(0.03) && this.counter > 5
          ? hex(`order-${this.counter - 1 - rng.below(5)}`, 16)
          : hex(`order-${this.counter}`, 16),
      note_commitment: noteCommitment(noteOwner, inner, value),
      arrival_nonce: (this.arrival[key] ?? 0n) + nonceStep,
      trading_key: hex(`key-${key}`),
      trading_key_signature: '00'.repeat(64),
      owner_commitment: noteOwner,
      note_inner_hash: inner,
      merkle_root: rng.chance(0.02) ? hex('stale-root') : ROOT,
      valid_input_proof: '00'.repeat(256),
      viewing_pubkey: hex(`view-${key}`),
      session_id: rng.chance(0.01) ? hex('old-session') : SESSION,
    };
    if (rng.chance(0.2)) body.min_fill_size = rng.chance(0.5) ? amount : 1n + amount / 3n;
    if (collateral !== undefined) body.collateral_amount = collateral;
    if (rng.chance(0.05)) body.tree_id = rng.below(3);
    return body;
  }

  accepted(key: number, nonce: bigint, kind: 'arrival' | 'cancel'): void {
    const nonces = kind === 'arrival' ? this.arrival : this.cancel;
    if (nonce > (nonces[key] ?? 0n)) nonces[key] = nonce;
  }

  place(): void {
    const { rng } = this;
    if (rng.chance(0.03) && this.placed.length > 0) {
      this.run({ ...rng.pick(this.placed).command, slot: this.core.slot }); // a repeat, or a stale body
      return;
    }
    const key = rng.below(KEYS);
    const order = this.body(rng.below(MARKETS.length), key);
    const conn = rng.below(4);
    const command: Extract<Command, { type: 'place' }> = {
      type: 'place',
      order,
      bodyDigest: hex(canonical(order)),
      accountId: rng.chance(0.02) ? 'acct-x' : `acct-${key % ACCOUNTS}`,
      connectionId: conn < 3 ? `conn-${conn}-${this.epochs[conn]}` : null,
      slot: this.core.slot,
    };
    this.placed.push({ command, key });
    if (this.placed.length > 400) this.placed.shift();
    if (this.run(command)) this.accepted(key, order.arrival_nonce, 'arrival');
  }

  cancelOne(): void {
    const { rng } = this;
    const target = this.placed.length === 0 ? undefined : rng.pick(this.placed);
    if (target === undefined) return;
    const key = rng.chance(0.03) ? (target.key + 1) % KEYS : target.key;
    const nonce = (this.cancel[key] ?? 0n) + (rng.chance(0.04) ? 0n : 1n);
    const ok = this.run({
      type: 'cancel',
      orderId: target.command.order.order_id,
      params: {
        trading_key: hex(`key-${key}`),
        cancel_nonce: nonce,
        session_id: SESSION,
        trading_key_signature: '00'.repeat(64),
      },
      accountId: rng.chance(0.03) ? 'acct-x' : target.command.accountId,
      slot: this.core.slot,
    });
    if (ok) this.accepted(key, nonce, 'cancel');
  }

  modify(): void {
    const { rng } = this;
    const target = this.placed.length === 0 ? undefined : rng.pick(this.placed);
    if (target === undefined) return;
    const m = MARKETS.findIndex((x) => x.config.symbol === target.command.order.symbol);
    const replacement = this.body(m < 0 || rng.chance(0.03) ? rng.below(MARKETS.length) : m, target.key);
    const old = target.command.order;
    const sameId = rng.chance(0.5);
    const order: PlaceOrder = {
      ...replacement,
      side: old.side,
      ...(sameId ? { order_id: old.order_id } : {}),
      ...(rng.chance(0.3)
        ? {
            note_commitment: old.note_commitment,
            owner_commitment: old.owner_commitment,
            note_inner_hash: old.note_inner_hash,
          }
        : {}),
    };
    const cancelNonce = (this.cancel[target.key] ?? 0n) + 1n;
    const command: Extract<Command, { type: 'modify' }> = {
      type: 'modify',
      oldOrderId: old.order_id,
      request: { cancel_signature: '00'.repeat(64), cancel_nonce: cancelNonce, replacement: order },
      replacementDigest: hex(canonical(order)),
      accountId: target.command.accountId,
      connectionId: null,
      slot: this.core.slot,
    };
    if (this.run(command)) {
      this.accepted(target.key, cancelNonce, 'cancel');
      this.accepted(target.key, order.arrival_nonce, 'arrival');
      this.placed.push({
        command: {
          type: 'place',
          order,
          bodyDigest: command.replacementDigest,
          accountId: command.accountId,
          connectionId: null,
          slot: 0n,
        },
        key: target.key,
      });
    }
  }

  settle(): void {
    const { rng } = this;
    const all = [...this.pending.values()];
    if (all.length === 0) return;
    const match = all[rng.below(all.length)];
    if (match === undefined) return;
    this.pending.delete(`${match.marketId}/${match.matchId}`);
    if (rng.chance(0.2)) {
      this.run({
        type: 'match_failed',
        marketId: match.marketId,
        matchId: match.matchId,
        reason: 'note_locked',
        slot: this.core.slot,
      });
      return;
    }
    const account = this.core.accountOf(match.orderId);
    const record = account === undefined ? undefined : this.core.orderRecord(match.orderId, account);
    const left = record !== undefined && record.remaining_amount > match.base;
    const spent = match.side === 'bid' ? match.quote : match.base;
    this.counter += 1;
    this.run({
      type: 'match_settled',
      marketId: match.marketId,
      matchId: match.matchId,
      changeNote: left
        ? { commitment: hex(`change-${this.counter}`), value: match.noteValue - spent, treeId: 0 }
        : null,
      slot: this.core.slot,
    });
  }

  step(): void {
    const { rng } = this;
    const r = rng.next();
    if (r < 0.45) this.place();
    else if (r < 0.57) this.cancelOne();
    else if (r < 0.65) this.modify();
    else if (r < 0.8) this.run({ type: 'tick', slot: this.core.slot + (rng.chance(0.05) ? 7n : 1n) });
    else if (r < 0.92) this.settle();
    else if (r < 0.94) {
      const conn = rng.below(3);
      this.run({
        type: 'disconnect',
        connectionId: `conn-${conn}-${this.epochs[conn]}`,
        slot: this.core.slot,
      });
      this.epochs[conn] = (this.epochs[conn] ?? 0) + 1;
    } else if (r < 0.96) {
      const m = rng.below(MARKETS.length);
      const spec = MARKETS[m];
      if (spec === undefined) return;
      const moved = (this.oracle[m] ?? spec.oracle) + BigInt(rng.below(5) - 2) * spec.config.tickSize;
      this.oracle[m] = moved > 0n ? moved : spec.oracle;
      this.run({
        type: 'oracle_price',
        marketId: spec.config.marketId,
        price: rng.chance(0.1) ? null : (this.oracle[m] ?? null),
        slot: this.core.slot,
      });
    } else if (r < 0.975) {
      const spec = rng.pick(MARKETS);
      this.run({
        type: 'market_gate',
        marketId: spec.config.marketId,
        pausedReason: rng.chance(0.4) ? 'circuit_breaker' : null,
        slot: this.core.slot,
      });
    } else if (r < 0.985) {
      this.run({
        type: 'venue_gate',
        pauseReasons: rng.chance(0.3) ? ['maintenance'] : [],
        slot: this.core.slot,
      });
    } else {
      this.counter += 1;
      this.run({
        type: 'roots',
        treeId: rng.below(2),
        roots: [hex(`root-${this.counter}`), ROOT],
        slot: this.core.slot,
      });
    }
  }
}

function runPinnedSequence(): { stateHash: string; transcript: string; seen: Set<string>; core: VenueCore } {
  const scenario = new Scenario();
  const { core } = scenario;
  scenario.run({ type: 'boot', sessionId: SESSION, slot: 0n });
  for (const m of MARKETS) {
    scenario.run({ type: 'add_market', market: m.config });
    scenario.run({ type: 'oracle_price', marketId: m.config.marketId, price: m.oracle, slot: 0n });
  }
  scenario.run({ type: 'roots', treeId: 0, roots: [ROOT], slot: 0n });
  scenario.run({ type: 'roots', treeId: 1, roots: [ROOT], slot: 0n });
  for (let i = 0; i < COMMANDS; i += 1) scenario.step();
  core.validateInternalState();
  return {
    stateHash: core.stateHash(),
    transcript: scenario.transcript.digest('hex'),
    seen: scenario.seen,
    core,
  };
}

test('a fixed seeded command sequence still yields the pinned state hash and answers', () => {
  const { stateHash, transcript, seen, core } = runPinnedSequence();
  // The pin is only worth something if the sequence reaches the paths it protects.
  for (const label of [
    'order:pending_settlement',
    'order:partially_filled',
    'order:fully_filled',
    'order:settlement_failed',
    'order:cancelled',
    'order:expired',
    'skip:self_trade',
    'skip:min_fill',
    'skip:fill_or_kill',
    'decided:volume',
    'decided:surplus',
    'refused:1200',
    'refused:1201',
    'refused:1204',
    'refused:1029',
    'refused:1211',
    'placed:repeat',
    ...MARKETS.map((m) => `filled:${m.config.marketId}`),
  ]) {
    assert.ok(seen.has(label), `the pinned sequence never produced ${label}`);
  }
  assert.equal(VenueCore.restore(CONFIG, core.snapshot()).stateHash(), stateHash, 'restore keeps the hash');
  assert.equal(stateHash, PINNED_STATE_HASH, 'stateHash of the pinned sequence moved');
  assert.equal(transcript, PINNED_TRANSCRIPT_DIGEST, 'the answers to the pinned sequence moved');
});
