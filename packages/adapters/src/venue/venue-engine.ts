import { performance } from 'node:perf_hooks';
import {
  type Command,
  type CoreConfig,
  type CoreEvent,
  type MarketConfig,
  type ReplyEvent,
  VenueCore,
} from '@venue/core';
import { assert, type Instrument, VenueError } from '@venue/protocol';
import type { VenueClock } from '../chain/clock.ts';
import {
  DEFERRED_COMMANDS_MAX,
  INTAKE_IN_FLIGHT_RECORDS_MAX,
  REPLICA_CLOSE_WAIT_MS,
} from '../config/limits.ts';
import type { Journal } from '../journal/journal.ts';
import { type Annotations, type JournalRecord, NO_ANNOTATIONS } from '../journal/journal-record.ts';
import type { SnapshotReplica } from '../replica/snapshot-replica.ts';
import { instrumentOf, type MarketListing } from './market-listing.ts';
import { composeSnapshot, type StateCompanion } from './state-companion.ts';

/** A command as callers build it: the sequencer adds the slot. */
export type UnstampedCommand = Command extends infer C
  ? C extends { readonly slot: bigint }
    ? Omit<C, 'slot'>
    : C
  : never;

/** A venue command waiting for room in the journal, with what the adapters journal beside it. */
interface DeferredCommand {
  readonly command: UnstampedCommand;
  readonly annotations: Annotations;
}

/** Receives every event the core emits, in order, once the command that caused it is durable. */
export type EventListener = (events: readonly CoreEvent[]) => void;

/**
 * The sequencer: the only code that calls the core. Each command is stamped with the current chain
 * slot (after `tick` commands have caught the core up, so expiries and batch clears happen at the slot
 * they belong to), applied, and appended to the journal in the same synchronous step, so the journal's
 * order is the order of application. Nothing a command caused leaves the process before its record is
 * durable: `submit` resolves, and listeners (the stream, the settlement pipeline) hear its events, only
 * after the journal's fsync. Durability is reached in journal order, so events leave in that order too.
 *
 * One thread, one command at a time: a modify's cancel and its replacement are one command, so no batch
 * can clear between them (spec 4.1 rule 2).
 *
 * Without a journal (tests, benchmarks, a venue run without a state directory) commands are released at
 * once. After a journal failure the engine applies nothing more: intake gets JOURNAL_UNAVAILABLE and the
 * venue's own commands are dropped, so memory never runs further ahead of the disk than the failed batch.
 * Likewise once `close` began (D119): intake gets SHUTTING_DOWN and the venue's own commands (a beat's
 * tick, a watch's roots or price, a settlement outcome) are dropped, as a crash would drop them, because
 * a closing journal refuses appends and a command applied then would be in no journal.
 */
export class VenueEngine {
  readonly #core: VenueCore;
  readonly #clock: VenueClock;
  readonly #journal: Journal | null;
  readonly #listings = new Map<string, MarketListing>();
  readonly #listeners: EventListener[] = [];
  /** The last release promise handed out: resolves once everything applied so far is out. */
  #released: Promise<void> = Promise.resolve();
  /** The venue's own commands that found the journal's window full, in arrival order. */
  readonly #deferred: DeferredCommand[] = [];
  readonly #onSnapshotError: (error: unknown) => void;
  readonly #companions: readonly StateCompanion[];
  readonly #replica: SnapshotReplica | null;
  /** Hears how long each journal record took to become durable, in seconds (the metrics). */
  #appendObserver: ((seconds: number) => void) | null = null;
  /** Set when `close` begins: from then on nothing is applied (D119). */
  #closing = false;

  constructor(
    core: VenueCore,
    clock: VenueClock,
    journal: Journal | null = null,
    onSnapshotError: (error: unknown) => void = () => {},
    companions: readonly StateCompanion[] = [],
    replica: SnapshotReplica | null = null,
  ) {
    this.#core = core;
    this.#clock = clock;
    this.#journal = journal;
    this.#onSnapshotError = onSnapshotError;
    this.#companions = companions;
    this.#replica = replica;
  }

  /** A fresh venue without a journal, booted for `sessionId` (tests and benchmarks). */
  static fresh(config: CoreConfig, clock: VenueClock, sessionId: string): VenueEngine {
    const engine = new VenueEngine(new VenueCore(config), clock);
    void engine.boot(sessionId);
    return engine;
  }

  get core(): VenueCore {
    return this.#core;
  }

  get journal(): Journal | null {
    return this.#journal;
  }

  /** Whether `companion` follows this engine's records (it was handed over at construction). */
  follows(companion: StateCompanion): boolean {
    return this.#companions.includes(companion);
  }

  observeJournalAppends(observer: (seconds: number) => void): void {
    this.#appendObserver = observer;
  }

  onEvents(listener: EventListener): void {
    this.#listeners.push(listener);
  }

  /**
   * Starts this boot's session: signatures made for any earlier session are refused from now on
   * (spec 2.1 session_id). After a recovery the core may be ahead of a clock that restarted behind it.
   */
  boot(sessionId: string): Promise<void> {
    const slot = this.#clock.slot() > this.#core.slot ? this.#clock.slot() : this.#core.slot;
    return this.#sequence({ type: 'boot', sessionId, slot });
  }

  /**
   * Lists a market (operator action at start-up). A market the recovered state already holds keeps
   * its book; its configuration must be the one it was listed with, since resting orders were accepted
   * under those rules.
   */
  addMarket(listing: MarketListing): Promise<void> {
    const { config } = listing;
    const existing = this.#core.marketConfig(config.marketId);
    this.#listings.set(config.symbol, listing);
    if (existing !== undefined) {
      if (!sameConfig(existing, config)) {
        // An operator error at start-up, not a request's: the boot stops with this message.
        throw new Error(
          `market ${config.symbol} (${config.marketId}) is listed with a configuration that differs from the one its journaled orders were accepted under; list it unchanged, or under a new market id`,
        );
      }
      return this.#released;
    }
    return this.#sequence({ type: 'add_market', market: config });
  }

  /**
   * Intake: stamps one command with the current slot and applies it. Rejects with the core's
   * VenueError when an intake rule refuses it (nothing changed), with VENUE_BUSY when the journal's
   * window for intake is full, with JOURNAL_STALLED while a replicated journal waits for its brokers,
   * and with JOURNAL_UNAVAILABLE (or JOURNAL_FENCED) after a journal failure. Resolves with the
   * command's events once they are durable and have been handed to listeners. Callers never choose the
   * slot: the clock may cross a slot boundary between building a command and applying it.
   */
  async submit(command: UnstampedCommand): Promise<CoreEvent[]> {
    if (this.#closing) throw stopping();
    this.catchUp();
    const journal = this.#journal;
    if (journal !== null) {
      if (journal.failure !== null) throw journal.failure;
      if (journal.stalled !== null) throw journal.stalled;
      if (journal.inFlight >= INTAKE_IN_FLIGHT_RECORDS_MAX) {
        throw new VenueError(
          'VENUE_BUSY',
          'the journal is still making earlier commands durable; retry after a short delay',
        );
      }
    }
    const stamped = this.#stamp(command);
    const events = this.#core.apply(stamped);
    await this.#commit({ command: stamped, annotations: NO_ANNOTATIONS }, events);
    return events;
  }

  /**
   * The venue's own commands (roots, oracle prices, gates, settlement outcomes): applied now, or as
   * soon as the journal has room, never refused. A refusal by the core is a programmer error here.
   * `annotations` are journaled beside the command for the state companions; the core never sees them.
   */
  record(command: UnstampedCommand, annotations: Annotations = NO_ANNOTATIONS): void {
    if (this.#closing) return;
    this.catchUp();
    if (this.#journal?.failure != null) return;
    if (this.#deferred.length > 0 || !this.#hasRoom()) {
      assert(
        this.#deferred.length < DEFERRED_COMMANDS_MAX,
        'DEFERRED_COMMANDS_MAX reached: the disk stopped',
      );
      this.#deferred.push({ command, annotations });
      return;
    }
    void this.#sequence(this.#stamp(command), annotations);
  }

  /** Applies `tick` until the core is at the clock's slot: expiries and due batches run. */
  catchUp(): void {
    if (this.#closing) return;
    const slot = this.#clock.slot();
    if (slot <= this.#core.slot) return;
    // A full or failed journal holds time still; the next beat tries again.
    if (this.#journal?.failure != null || !this.#hasRoom()) return;
    void this.#sequence({ type: 'tick', slot });
  }

  /** Resolves once every command applied so far is durable and its events are out. */
  settled(): Promise<void> {
    return this.#released;
  }

  /** Records waiting for durability: the drain's `journal_records_in_flight`. */
  get inFlight(): number {
    return (this.#journal?.inFlight ?? 0) + this.#deferred.length;
  }

  /** The snapshot replica's health and progress (operations telemetry); null without one. */
  get replica(): SnapshotReplica | null {
    return this.#replica;
  }

  /**
   * Stops applying commands (intake gets SHUTTING_DOWN, the venue's own commands are dropped), waits
   * for in-flight records (and a snapshot being taken), closes the journal, then the replica. The
   * core's state is then exactly what the journal holds (D119).
   */
  async close(): Promise<void> {
    this.#closing = true;
    this.#deferred.splice(0);
    await this.#released.catch(() => undefined);
    const replica = this.#replica;
    // The journal waits for a snapshot in progress; a stuck replica must not keep the venue from stopping.
    const giveUp = replica === null ? null : setTimeout(() => void replica.close(), REPLICA_CLOSE_WAIT_MS);
    await this.#journal?.close();
    if (giveUp !== null) clearTimeout(giveUp);
    await replica?.close();
  }

  // ---- Sequencing ----

  #stamp(command: UnstampedCommand): Command {
    return (command.type === 'add_market' ? command : { ...command, slot: this.#core.slot }) as Command;
  }

  /** The journal's own answer: a stalled replicated journal has no room whatever its count. */
  #hasRoom(): boolean {
    return this.#journal === null || this.#journal.hasRoom;
  }

  /** Applies a system command; a refusal would mean the venue built an invalid command. */
  #sequence(command: Command, annotations: Annotations = NO_ANNOTATIONS): Promise<void> {
    const events = this.#core.apply(command);
    const released = this.#commit({ command, annotations }, events);
    // Failures reach intake callers through their own promise; system commands have no caller.
    released.catch(() => undefined);
    return released;
  }

  /**
   * Journals an applied command's record and releases its events once durable. Appends resolve in
   * journal order, and each release is chained directly on its append, so events leave in journal
   * order. The companions follow the record here, as recovery and the replica do after a restart.
   */
  #commit(record: JournalRecord, events: CoreEvent[]): Promise<void> {
    for (const companion of this.#companions) companion.follow(record, events);
    const journal = this.#journal;
    if (journal === null) {
      this.#fanOut(events);
      return Promise.resolve();
    }
    const observer = this.#appendObserver;
    const started = observer === null ? 0 : performance.now();
    const released = journal.append(record).then(() => {
      observer?.((performance.now() - started) / 1000);
      this.#fanOut(events);
      this.#drainDeferred();
    });
    this.#released = released;
    const nowMs = this.#clock.nowMs();
    if (journal.snapshotDue(nowMs)) this.#snapshot(journal, nowMs);
    return released;
  }

  /**
   * Takes the snapshot due after this command. With a running replica this costs the sequencer one
   * message: the replica produces the file at this record on its own thread. Without one (or after it
   * was dropped) the snapshot is composed here, in this step, which stops the sequencer for as long
   * as serialising the state takes; that text then seeds a fresh replica if restarts are left.
   */
  #snapshot(journal: Journal, nowMs: number): void {
    const replica = this.#replica;
    if (replica?.running === true) {
      journal.writeSnapshotFrom((at) => replica.snapshotAt(at), nowMs).catch(this.#onSnapshotError);
      return;
    }
    const at = journal.position;
    const snapshot = composeSnapshot(this.#core.snapshot(), this.#companions);
    journal.writeSnapshot(snapshot, nowMs).catch(this.#onSnapshotError);
    replica?.restart(snapshot, at);
  }

  #fanOut(events: readonly CoreEvent[]): void {
    if (events.length > 0) for (const listener of this.#listeners) listener(events);
  }

  #drainDeferred(): void {
    while (!this.#closing && this.#deferred.length > 0 && this.#hasRoom() && this.#journal?.failure == null) {
      const { command, annotations } = this.#deferred.shift() as DeferredCommand;
      void this.#sequence(this.#stamp(command), annotations);
    }
  }

  // ---- Reads for the REST routes ----

  instruments(venuePaused: boolean): Instrument[] {
    return [...this.#listings.values()]
      .sort((a, b) => (a.config.symbol < b.config.symbol ? -1 : 1))
      .map((listing) => instrumentOf(listing, this.#core.marketGate(listing.config.marketId), venuePaused));
  }

  instrument(symbol: string, venuePaused: boolean): Instrument {
    const listing = this.#listings.get(symbol);
    if (listing === undefined) {
      throw new VenueError(
        'UNKNOWN_INSTRUMENT',
        `no market is listed as ${symbol}; GET /instruments lists them`,
      );
    }
    return instrumentOf(listing, this.#core.marketGate(listing.config.marketId), venuePaused);
  }

  markets(): MarketConfig[] {
    return [...this.#listings.values()].map((listing) => listing.config);
  }

  /** How many markets have new trading closed by their own gate (oracle, breaker). */
  marketsPaused(): number {
    let count = 0;
    for (const listing of this.#listings.values()) {
      if (this.#core.marketGate(listing.config.marketId).pausedReason !== null) count += 1;
    }
    return count;
  }
}

function stopping(): VenueError {
  return new VenueError(
    'SHUTTING_DOWN',
    'the venue is stopping and applies no more commands; retry on the next boot',
  );
}

/** Market configurations compare as data (they hold bigints, so JSON needs a replacer). */
function sameConfig(a: MarketConfig, b: MarketConfig): boolean {
  const text = (config: MarketConfig) =>
    JSON.stringify(config, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value));
  return text(a) === text(b);
}

/** The reply a request's command produced; every accepted intake command produces exactly one. */
export function replyOf<T extends ReplyEvent['type']>(
  events: readonly CoreEvent[],
  type: T,
): Extract<ReplyEvent, { type: T }> {
  const reply = events.find((event): event is Extract<ReplyEvent, { type: T }> => event.type === type);
  assert(reply !== undefined, `the core accepted a command without a ${type} reply`);
  return reply;
}
