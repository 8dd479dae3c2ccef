import { createHash } from 'node:crypto';
import { type Command, type CoreEvent, type MatchEvent, VenueCore } from '@venue/core';
import { isVenueError, SETTLEMENT_FAILURE_REASONS } from '@venue/protocol';
import {
  hex32,
  orderBody,
  placeCommand,
  TEST_CORE_CONFIG,
  TEST_ROOT,
  TEST_SESSION,
  testMarket,
} from '../core-fixtures.ts';
import { drawFaultRates, type FaultRates } from './faults.ts';
import { OrderLedger, SimInvariantError } from './order-ledger.ts';
import { SimRandom } from './random.ts';

/**
 * The deterministic simulator (issue 11 item 1), skeleton. One seed drives everything: the venue
 * core (VenueCore, applied directly as the sequencer would), a settlement chain that answers each
 * batch's matches after a delay, an oracle, and simulated clients that place, cancel and modify,
 * reuse notes and replay bodies, and disconnect. Time is the simulated slot; nothing reads a wall
 * clock or draws outside the seed. Faults come at the seed's own rates (faults.ts).
 *
 * After every step: the core's validateInternalState(), the order ledger's invariants (one state
 * per order, spec 3.1 transitions only, the terminal event last, no note behind two live orders,
 * events only to the owner). Every REPLAY_CHECK_STEPS steps and at the end, the whole command log
 * replayed into a fresh core must give the live stateHash(). A crash fault restores the core from
 * the latest snapshot plus the commands after it, and must land on the same stateHash.
 *
 * Ports for the parts being wired elsewhere: `SimSettlement` (today an outcome model; the chain
 * simulator plugs in here) and `SimJournal` (today the in-memory command log; FileJournal over
 * in-memory files plugs in here).
 */

export const REPLAY_CHECK_STEPS = 100;
export const SNAPSHOT_EVERY_COMMANDS = 50;
const ACCOUNTS = 4;
const MARKET = testMarket('SOL-USDC');

export interface SimOptions {
  readonly seed: number;
  readonly steps: number;
}

export interface SimReport {
  readonly seed: number;
  readonly steps: number;
  readonly commands: number;
  readonly refused: number;
  readonly orders: number;
  readonly events: number;
  readonly crashes: number;
  readonly faults: Readonly<Record<string, number>>;
  readonly rates: FaultRates;
  readonly stateHash: string;
}

/** A failing run: the message names the seed and how to reproduce it. */
export class SimFailure extends Error {
  constructor(
    readonly seed: number,
    readonly step: number,
    cause: unknown,
    steps: number,
  ) {
    super(
      `seed ${seed} failed at step ${step}: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}\n` +
        `  reproduce: npm run sim -- --seed ${seed} --steps ${steps}`,
      { cause },
    );
    this.name = 'SimFailure';
  }
}

/** Where settlement outcomes come from. The chain simulator will implement this. */
export interface SimSettlement {
  /** The core reserved orders in a batch; the port answers later through `due`. */
  matched(matches: readonly MatchEvent[], slot: bigint): void;
  /** Outcome commands due at `slot` (match_settled / match_failed), unstamped. */
  due(slot: bigint, remaining: (match: MatchEvent) => bigint): Command[];
}

/** The durable log of commands. FileJournal (over in-memory files) will implement this. */
export interface SimJournal {
  append(command: Command): void;
  /** Takes a snapshot of the state after the last appended command. */
  snapshot(core: VenueCore): void;
  /** A crash and a restart: the state recovered from what was made durable. */
  recover(): VenueCore;
  readonly commands: readonly Command[];
}

/** Settles each batch of one market together after a random delay, or fails it at the fault rate. */
export class OutcomeSettlement implements SimSettlement {
  readonly #random: SimRandom;
  readonly #rates: FaultRates;
  readonly #waiting = new Map<string, { dueSlot: bigint; matches: MatchEvent[]; fail: boolean }>();
  failures = 0;

  constructor(random: SimRandom, rates: FaultRates) {
    this.#random = random;
    this.#rates = rates;
  }

  matched(matches: readonly MatchEvent[], slot: bigint): void {
    for (const match of matches) {
      const key = `${match.marketId}/${match.batch}`;
      let batch = this.#waiting.get(key);
      if (batch === undefined) {
        const delay = 1n + BigInt(this.#random.below(this.#rates.settlementDelaySlotsMax + 1));
        batch = {
          dueSlot: slot + delay,
          matches: [],
          fail: this.#random.chance(this.#rates.settlementFailure),
        };
        this.#waiting.set(key, batch);
      }
      batch.matches.push(match);
    }
  }

  due(slot: bigint, remaining: (match: MatchEvent) => bigint): Command[] {
    const commands: Command[] = [];
    for (const [key, batch] of [...this.#waiting]) {
      if (batch.dueSlot > slot) continue;
      this.#waiting.delete(key);
      if (batch.fail) this.failures += 1;
      for (const match of batch.matches) {
        if (batch.fail) {
          const reason = this.#random.pick(SETTLEMENT_FAILURE_REASONS);
          commands.push({
            type: 'match_failed',
            marketId: match.marketId,
            matchId: match.matchId,
            reason,
            slot,
          });
          continue;
        }
        const left = remaining(match) - match.baseQuantity;
        const changeNote =
          left > 0n
            ? {
                commitment: hex32(`change-${match.marketId}-${match.matchId}`),
                value: left,
                treeId: match.treeId,
              }
            : null;
        commands.push({
          type: 'match_settled',
          marketId: match.marketId,
          matchId: match.matchId,
          changeNote,
          slot,
        });
      }
    }
    return commands;
  }
}

/** The command log in memory, with snapshots; recovery = newest snapshot + the commands after it. */
export class MemoryJournal implements SimJournal {
  readonly commands: Command[] = [];
  #snapshot: { text: string; at: number } | null = null;

  append(command: Command): void {
    this.commands.push(command);
  }

  snapshot(core: VenueCore): void {
    this.#snapshot = { text: core.snapshot(), at: this.commands.length };
  }

  recover(): VenueCore {
    const core =
      this.#snapshot === null
        ? new VenueCore(TEST_CORE_CONFIG)
        : VenueCore.restore(TEST_CORE_CONFIG, this.#snapshot.text);
    for (const command of this.commands.slice(this.#snapshot?.at ?? 0)) core.apply(command);
    return core;
  }
}

interface SimClient {
  readonly accountId: string;
  readonly key: string;
  nonce: bigint;
  cancelNonce: bigint;
  connection: number;
  /** Signed bodies this client sent, for replays. */
  readonly sent: Command[];
}

export class Simulator {
  readonly #random: SimRandom;
  readonly #rates: FaultRates;
  readonly #ledger = new OrderLedger();
  readonly #settlement: OutcomeSettlement;
  readonly #journal: SimJournal;
  readonly #clients: SimClient[] = [];
  readonly #faults: Record<string, number> = {};
  readonly #matches = new Map<string, MatchEvent>();
  #core = new VenueCore(TEST_CORE_CONFIG);
  #nextOrder = 1;
  #price = 1000n;
  #refused = 0;
  #crashes = 0;
  #pausedUntil = -1n;
  #staleUntil = -1n;

  constructor(readonly seed: number) {
    this.#random = new SimRandom(seed);
    this.#rates = drawFaultRates(this.#random);
    this.#settlement = new OutcomeSettlement(this.#random, this.#rates);
    this.#journal = new MemoryJournal();
    for (let i = 0; i < ACCOUNTS; i++) {
      this.#clients.push({
        accountId: `acct-${i}`,
        key: `k${i}`,
        nonce: 1n,
        cancelNonce: 1n,
        connection: 0,
        sent: [],
      });
    }
  }

  static run(options: SimOptions): SimReport {
    const sim = new Simulator(options.seed);
    let step = 0;
    try {
      sim.#open();
      for (step = 1; step <= options.steps; step++) {
        sim.#step();
        sim.#check(step % REPLAY_CHECK_STEPS === 0);
      }
      sim.#check(true);
    } catch (error) {
      throw new SimFailure(options.seed, step, error, options.steps);
    }
    return sim.#report(options.steps);
  }

  // ---- The world ----

  #open(): void {
    this.#apply({ type: 'boot', sessionId: TEST_SESSION, slot: 0n });
    this.#apply({ type: 'add_market', market: MARKET });
    for (let treeId = 0; treeId < TEST_CORE_CONFIG.treeCount; treeId++) {
      this.#apply({ type: 'roots', treeId, roots: [TEST_ROOT], slot: 0n });
    }
    this.#apply({ type: 'oracle_price', marketId: MARKET.marketId, price: this.#price, slot: 0n });
  }

  #step(): void {
    const roll = this.#random.below(100);
    if (roll < 45) this.#place();
    else if (roll < 58) this.#cancel();
    else if (roll < 66) this.#modify();
    else this.#tick();
    this.#maybeFaults();
  }

  #place(): void {
    const client = this.#random.pick(this.#clients);
    if (client.sent.length > 0 && this.#random.chance(this.#rates.replay)) {
      this.#fault('replay');
      this.#apply({ ...(this.#random.pick(client.sent) as Command), slot: this.#core.slot } as Command);
      return;
    }
    const id = this.#seedScoped(this.#nextOrder++);
    let note = `n${id}`;
    const live = this.#ledger.liveOrders(client.accountId);
    if (live.length > 0 && this.#random.chance(this.#rates.noteReuse)) {
      this.#fault('note_reuse');
      note = `n${this.#idOfOrder.get(this.#random.pick(live)) ?? id}`;
    }
    const side = this.#random.chance(0.5) ? 'bid' : 'ask';
    const body = orderBody({
      id,
      side,
      key: client.key,
      type: this.#random.pick(['limit', 'limit', 'limit', 'ioc', 'fok'] as const),
      price: this.#price + BigInt(this.#random.below(11) - 5) * MARKET.tickSize,
      amount: 1n + BigInt(this.#random.below(40)),
      nonce: client.nonce++,
      expiry: this.#core.slot + 15n + BigInt(this.#random.below(200)),
      note,
    });
    const command = placeCommand(
      body,
      this.#core.slot,
      client.accountId,
      `conn-${client.accountId}-${client.connection}`,
    );
    this.#idOfOrder.set(body.order_id, note.slice(1));
    client.sent.push(command);
    this.#apply(command);
  }

  /** Note labels by order id, so a reused note is the same commitment (same owner, inner, value). */
  readonly #idOfOrder = new Map<string, string>();

  #cancel(): void {
    const client = this.#random.pick(this.#clients);
    const live = this.#ledger.liveOrders(client.accountId);
    if (live.length === 0) return;
    const orderId = this.#random.pick(live);
    this.#apply({
      type: 'cancel',
      orderId,
      params: {
        trading_key: hex32(`key-${client.key}`),
        cancel_nonce: client.cancelNonce++,
        session_id: TEST_SESSION,
        trading_key_signature: '00'.repeat(64),
      },
      accountId: client.accountId,
      slot: this.#core.slot,
    });
  }

  #modify(): void {
    const client = this.#random.pick(this.#clients);
    const live = this.#ledger.liveOrders(client.accountId);
    if (live.length === 0) return;
    const oldOrderId = this.#random.pick(live);
    const inPlace = this.#random.chance(0.5);
    const id = inPlace
      ? Number(this.#idOfOrder.get(oldOrderId) ?? this.#nextOrder++)
      : this.#seedScoped(this.#nextOrder++);
    const note = this.#idOfOrder.get(oldOrderId) ?? String(id);
    const replacement = orderBody({
      id,
      key: client.key,
      side: this.#random.chance(0.5) ? 'bid' : 'ask',
      price: this.#price + BigInt(this.#random.below(11) - 5) * MARKET.tickSize,
      amount: 1n + BigInt(this.#random.below(40)),
      nonce: client.nonce++,
      expiry: this.#core.slot + 15n + BigInt(this.#random.below(200)),
      note: `n${note}`,
    });
    const order = inPlace ? { ...replacement, order_id: oldOrderId } : replacement;
    this.#idOfOrder.set(order.order_id, note);
    this.#apply({
      type: 'modify',
      oldOrderId,
      request: { cancel_signature: '00'.repeat(64), cancel_nonce: client.cancelNonce++, replacement: order },
      replacementDigest: createHash('sha256')
        .update(`${order.order_id}/${order.arrival_nonce}`)
        .digest('hex'),
      accountId: client.accountId,
      connectionId: `conn-${client.accountId}-${client.connection}`,
      slot: this.#core.slot,
    });
  }

  #tick(): void {
    const slot = this.#core.slot + 1n;
    this.#apply({ type: 'tick', slot });
    const remaining = (match: MatchEvent) => {
      const record = this.#core.orderRecord(match.orderId, match.accountId);
      return record.remaining_amount;
    };
    for (const outcome of this.#settlement.due(slot, remaining)) this.#apply(outcome);
    // The oracle publishes every slot unless its feed is stale; a price walks within the band.
    if (slot === this.#staleUntil) {
      this.#apply({ type: 'market_gate', marketId: MARKET.marketId, pausedReason: null, slot });
    }
    if (slot >= this.#staleUntil) {
      const step = BigInt(this.#random.below(3) - 1) * MARKET.tickSize;
      this.#price =
        this.#price + step < 900n || this.#price + step > 1100n ? this.#price : this.#price + step;
      this.#apply({ type: 'oracle_price', marketId: MARKET.marketId, price: this.#price, slot });
    }
    if (slot === this.#pausedUntil) this.#apply({ type: 'venue_gate', pauseReasons: [], slot });
  }

  #maybeFaults(): void {
    const slot = this.#core.slot;
    const rates = this.#rates;
    if (slot >= this.#staleUntil && this.#random.chance(rates.oracleStale)) {
      this.#fault('oracle_stale');
      this.#staleUntil = slot + 1n + BigInt(this.#random.below(20));
      this.#apply({ type: 'market_gate', marketId: MARKET.marketId, pausedReason: 'oracle_stale', slot });
      this.#apply({ type: 'oracle_price', marketId: MARKET.marketId, price: null, slot });
    }
    if (this.#random.chance(rates.oracleReplay)) {
      // The monitor refuses a replayed update and pauses the market until the next good one.
      this.#fault('oracle_replay');
      this.#staleUntil = slot + 1n;
      this.#apply({ type: 'market_gate', marketId: MARKET.marketId, pausedReason: 'oracle_invalid', slot });
      this.#apply({ type: 'oracle_price', marketId: MARKET.marketId, price: null, slot });
    }
    if (slot >= this.#pausedUntil && this.#random.chance(rates.venuePause)) {
      this.#fault('attestation_mismatch');
      this.#pausedUntil = slot + 1n + BigInt(this.#random.below(30));
      this.#apply({ type: 'venue_gate', pauseReasons: ['attestation_mismatch'], slot });
    }
    if (this.#random.chance(rates.disconnect)) {
      this.#fault('disconnect');
      const client = this.#random.pick(this.#clients);
      this.#apply({
        type: 'disconnect',
        connectionId: `conn-${client.accountId}-${client.connection}`,
        slot,
      });
      client.connection += 1;
    }
    if (this.#random.chance(rates.crash)) this.#crash();
  }

  #crash(): void {
    this.#fault('crash');
    this.#crashes += 1;
    const live = this.#core.stateHash();
    const recovered = this.#journal.recover();
    if (recovered.stateHash() !== live) {
      throw new SimInvariantError(
        `recovery after a crash gave ${recovered.stateHash()}, the live venue had ${live}`,
      );
    }
    this.#core = recovered;
  }

  // ---- The sequencer ----

  /** Applies a command as the sequencer would: journaled when accepted, refused when not. */
  #apply(command: Command): void {
    let events: CoreEvent[];
    try {
      events = this.#core.apply(command);
    } catch (error) {
      if (!isVenueError(error)) throw error;
      this.#refused += 1;
      return;
    }
    this.#journal.append(command);
    if (this.#journal.commands.length % SNAPSHOT_EVERY_COMMANDS === 0) this.#journal.snapshot(this.#core);
    for (const event of events) {
      if (event.type === 'placed' && !event.repeat) {
        const order = (command as Extract<Command, { type: 'place' }>).order;
        this.#ledger.booked(event.response.order_id, event.accountId, order.note_commitment);
      }
      if (event.type === 'modified') {
        const replacement = (command as Extract<Command, { type: 'modify' }>).request.replacement;
        this.#ledger.booked(event.response.order_id, event.accountId, replacement.note_commitment);
      }
    }
    this.#ledger.observe(events);
    const matches = events.filter((e): e is MatchEvent => e.type === 'match');
    for (const match of matches) this.#matches.set(`${match.marketId}/${match.matchId}`, match);
    if (matches.length > 0) this.#settlement.matched(matches, this.#core.slot);
    if (command.type === 'match_settled' && command.changeNote !== null) {
      this.#ledger.changeNote(command.marketId, command.matchId, command.changeNote.commitment);
    }
  }

  #check(replay: boolean): void {
    this.#core.validateInternalState();
    this.#ledger.checkNotes();
    if (!replay) return;
    const fresh = new VenueCore(TEST_CORE_CONFIG);
    for (const command of this.#journal.commands) fresh.apply(command);
    if (fresh.stateHash() !== this.#core.stateHash()) {
      throw new SimInvariantError('replaying every command from scratch does not give the live stateHash');
    }
  }

  #fault(kind: string): void {
    this.#faults[kind] = (this.#faults[kind] ?? 0) + 1;
  }

  /** Order ids unique across seeds too (the seed is part of the id label). */
  #seedScoped(n: number): number {
    return (this.seed % 100_000) * 1_000_000 + n;
  }

  #report(steps: number): SimReport {
    return {
      seed: this.seed,
      steps,
      commands: this.#journal.commands.length,
      refused: this.#refused,
      orders: this.#ledger.orderCount,
      events: this.#ledger.eventsSeen,
      crashes: this.#crashes,
      faults: { ...this.#faults, settlement_failure: this.#settlement.failures },
      rates: this.#rates,
      stateHash: this.#core.stateHash(),
    };
  }
}
