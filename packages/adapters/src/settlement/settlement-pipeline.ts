import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import type { CoreEvent, MarketConfig, MatchEvent, MatchesEvent } from '@venue/core';
import {
  fieldFromDigest,
  MATCH_FILLS_MAX,
  type MatchBatchHeader,
  type MatchLeg,
  type MatchProof,
  type MatchProver,
  type NoteHasher,
  sealFillMemo,
} from '@venue/notes';
import {
  assert,
  type FillMemo,
  isVenueError,
  SETTLEMENT_FAILURE_REASONS,
  type SettlementFailureReason,
} from '@venue/protocol';
import type { VenueClock } from '../chain/clock.ts';
import type { RootSource } from '../chain/root-mirror.ts';
import { BATCH_LEGS_MAX, FILLS_AWAITING_EVENT_MAX, QUEUED_MATCHES_PER_MARKET_MAX } from '../config/limits.ts';
import type { Annotations } from '../journal/journal-record.ts';
import { type FillFrame, fillFrame, type StreamPublisher } from '../stream/stream-frames.ts';
import type { VenueEngine } from '../venue/venue-engine.ts';
import type { SettlementWork } from '../workers/settlement-work.ts';
import { isChainRefusal } from './chain-refusal.ts';
import type { MatchFacts } from './match-facts.ts';
import { connected, groupsOf, type Joining, join, newJoining } from './match-groups.ts';
import type { NoteOpenings } from './note-openings.ts';
import type {
  ChainKeys,
  ChainSettlementLeg,
  ChainSettlementRecord,
  SettlementChain,
  SignedChainBatch,
  UnsignedChainBatch,
} from './settlement-chain.ts';
import type { SettlementMetrics } from './settlement-metrics.ts';
import {
  chainLegOf,
  fromMatchEvent,
  fromPendingMatch,
  type LegPlanInput,
  legPlanInput,
  memoOf,
  type PlannedLeg,
  planLeg,
  plannedLegOf,
  proofHeaderOf,
  proofLegOf,
  type SettlingMatch,
} from './settling-match.ts';
import { TurnBudget } from './turn-budget.ts';

/** Where fills and tree messages go: the stream server, typed frames only (stream-frames.ts). */
export type SettlementPublisher = StreamPublisher;

export interface SettlementPipelineOptions {
  readonly engine: VenueEngine;
  /** The chain, signing with the enclave's settlement signer (the key final governance accepts). */
  readonly chain: SettlementChain;
  readonly hasher: NoteHasher;
  /**
   * Proves each leg of a sealed batch (VALID_MATCH, on worker threads): Groth16 in a venue that
   * settles for real, the named stand-in in tests and the simulator (notes match-stand-in.ts).
   */
  readonly prover: MatchProver;
  /** The chain's recent-root windows: an order's root is checked against them at lock (spec 2.1). */
  readonly roots?: RootSource;
  /**
   * The enclave-held key the fills' salts are derived from (HMAC-SHA256): the salt hides a fill's
   * amounts in its public tag, so the chain must never learn it. Default: fresh random bytes per
   * boot (a restarted venue proves its batches again). The simulator passes a seeded key.
   */
  readonly fillSaltKey?: Uint8Array;
  /** Operating lines: a batch whose proofs could not be made is a bug, said out loud here. */
  readonly log?: (line: string) => void;
  /** One of the engine's state companions: it learns change notes from the journaled outcomes. */
  readonly openings: NoteOpenings;
  /** Prices and counterparts of pending matches, kept across restarts (memos and exact groups). */
  readonly facts?: MatchFacts;
  readonly clock: VenueClock;
  readonly metrics?: SettlementMetrics;
  readonly publisher?: SettlementPublisher;
  /** Seal a market's batch at once when this many legs wait (default and maximum BATCH_LEGS_MAX). */
  readonly batchLegsMax?: number;
  /**
   * Asked before every step: may this state settle on this chain yet (chain-state-check.ts)? Until
   * it says yes the pipeline locks, submits and records nothing; matches wait in their lanes.
   */
  readonly guard?: { allowsSettlement(): boolean };
  /**
   * Longest the pipeline works in one turn of the event loop, in milliseconds, before it yields to
   * intake and resumes on the next turn (turn-budget.ts). Planning a leg (Poseidon), asking for its
   * proof and sealing its memo cost about a millisecond each, so thousands of legs done in one turn
   * would stop the sequencer for seconds. Undefined: no limit, every beat does all its work at once,
   * which the deterministic simulator and the settlement tests rely on (a beat is one step there).
   */
  readonly turnBudgetMs?: number;
  /**
   * With a turn budget, how many events, matches of a batch's record, or groups a unit of it takes in
   * (default TAKE_IN_PER_UNIT). Tests set it small so one auction's record is taken in over several
   * turns.
   */
  readonly takeInPerUnit?: number;
  /**
   * Where the per-leg CPU work runs (workers/settlement-pool.ts): the Poseidon hashes of each leg's
   * plan and the sealing of each fill memo go to a worker thread, and their results are applied on
   * this thread in the order asked. Undefined: on this thread, synchronously (the simulator and the
   * settlement tests, where a beat is one step). A venue that serves users passes both this and
   * `turnBudgetMs` (docs/settlement.md section 12).
   */
  readonly work?: SettlementWork;
}

/**
 * Matches that must settle together: the orders of one batch auction joined by their fills. Value is
 * conserved per asset within such a group (every fill's base and quote appear on both sides), so a
 * settlement batch is made of whole groups and the chain's conservation check holds by construction.
 */
interface Group {
  readonly marketId: string;
  readonly legs: readonly PlannedLeg[];
  /**
   * Rebuilt at boot from the core's pending matches. A batch sent before the restart may hold these
   * matches and still land, so a failure of the rebuilt batch is not the final word (#landedOrFailed).
   */
  readonly recovered?: boolean;
}

/** A recovered group whose new batch failed while its locks still hold: an older batch may land it. */
interface Doubtful {
  readonly group: Group;
  readonly reason: SettlementFailureReason;
}

/**
 * A group on its way into the queue. With a remote chain it can wait here a few beats: for the view
 * to hold its shards' roots (planning), then its notes' tags (consumed or locked?), then for its
 * lock request's outcome. An in-process chain answers at once, so nothing waits.
 */
interface Admission {
  readonly marketId: string;
  readonly matches: readonly SettlingMatch[];
  readonly recovered: boolean;
  group: Group | null;
  /** Legs planned so far, in match order: planning a large group can span several turns. */
  readonly planned: PlannedLeg[];
  /** Checked against the queue's bound once: a group waiting for its lock's reply is not counted again. */
  bounded: boolean;
  /** The legs' hashes are being computed on the settlement worker (#planOnWorker). */
  hashing: boolean;
  /**
   * The chain's view version at which this group last waited on the chain (its notes unseen, its
   * lock's reply not in), or null: until the view changes it has nothing to learn (#admitWaiting).
   */
  waitedAt: number | null;
}

/**
 * Final outcomes being reported: each leg's memo is sealed, then the core hears match_settled. A
 * large batch is reported over several turns; the lane seals nothing meanwhile (#mustWait).
 */
interface Reporting {
  readonly groups: readonly Group[];
  readonly legs: readonly PlannedLeg[];
  readonly record: ChainSettlementRecord | undefined;
  readonly reached: bigint;
  next: number;
  /** The record's leaf indexes by commitment, made once (a batch is reported over many turns). */
  leaves: ReadonlyMap<string, bigint> | null;
}

interface InFlight {
  readonly batch: SignedChainBatch;
  readonly groups: readonly Group[];
}

/**
 * A sealed batch whose legs are being proved. Its number and deadline are fixed (the proofs are bound
 * to them), so no other batch of the market is sealed meanwhile; once every proof is back it is
 * signed and submitted, and if the deadline passes first its matches fail.
 */
interface Proving {
  readonly groups: readonly Group[];
  readonly batchSeq: bigint;
  readonly deadline: bigint;
  legs: ChainSettlementLeg[] | null;
  failure: Error | null;
  /** Being signed on the chain port's worker (`signLater`), and the signed batch once back. */
  signing: boolean;
  signed: SignedChainBatch | null;
}

/**
 * An event list of the core holding match events not taken in yet (working in slices): the auction's
 * fan-out is taken in over the turns after the core's, a slice of events per unit of the budget.
 */
interface Incoming {
  readonly events: readonly CoreEvent[];
  /** The next event to look at, and within a batch's record of matches, the next match. */
  next: number;
  nextMatch: number;
  /** The slot at which the core handed the events over (each match's seenSlot). */
  readonly seenSlot: bigint;
  /** Match events not yet admitted, per market (queueDepth and heldMatches count them). */
  readonly pending: Map<string, number>;
  /** The matches taken in so far, per auction batch (market:batch), joined as they come. */
  readonly batches: Map<string, Joining<SettlingMatch>>;
  /** Once every event is read: the groups to admit, and the next one. */
  groups: SettlingMatch[][] | null;
  nextGroup: number;
}

/** Events read, or groups admitted, per unit of the turn budget while taking in a fan-out (#takeIn). */
const TAKE_IN_PER_UNIT = 128;

interface Lane {
  readonly admitting: Admission[];
  readonly queued: Group[];
  proving: Proving | null;
  inFlight: InFlight | null;
  /** Groups whose notes the chain already consumed (an earlier landing): waiting for finality. */
  readonly landed: Group[];
  /** Outcomes recorded but not durable yet: no batch is sealed until they are (see #seal). */
  recording: boolean;
  /** Waiting until their notes are consumed (landed) or a lock no longer holds (failed). */
  readonly doubtful: Doubtful[];
  /** Final groups whose outcomes are being reported, oldest first (#reportSome). */
  readonly reporting: Reporting[];
  /** Failures being reported, oldest first (#reportFailures). */
  readonly failing: Failing[];
}

/**
 * Matches that failed and are being told to the core, a unit of the turn budget each: a rejected
 * batch of a thousand legs is a thousand records, tens of milliseconds on the sequencer's thread.
 */
interface Failing {
  readonly matches: readonly SettlingMatch[];
  readonly reason: SettlementFailureReason;
  next: number;
}

/**
 * The venue's settlement pipeline (docs/settlement.md). It hears the core's matches once they are
 * durable, locks each matched note on chain under its note-use tag until the match's lock expiry,
 * queues the match's group, and seals one batch per market per slot (or at once at the size cap),
 * signed by the settlement signer, with the market's next batch number. It follows each batch to
 * finality, failure or a reorg, and tells the core the outcome through `engine.record`. The chain is
 * the truth throughout: a group whose input notes the chain consumed has settled, whatever became of
 * the transaction the pipeline remembers, so a retry never settles anything twice.
 */
export class SettlementPipeline {
  readonly #o: SettlementPipelineOptions;
  readonly #legsMax: number;
  readonly #lanes = new Map<string, Lane>();
  /** Matches the pipeline owns (queued, locked, in flight): market:match. */
  readonly #owned = new Set<string>();
  /** Fill messages held until the core's fill event for the same match is out. */
  readonly #fills = new Map<string, HeldFill>();
  #stopped = false;
  readonly #detach: () => void;
  /** A KeyObject made once: preparing the raw key again for every fill's HMAC cost more than the HMAC. */
  readonly #saltKey: KeyObject;
  readonly #turn: TurnBudget;
  readonly #takeInPerUnit: number;
  /** Each shard's last root window seen, as a set (#rootInWindow). */
  readonly #windows = new Map<
    number,
    {
      window: readonly { readonly root: string }[];
      length: number;
      first: string | undefined;
      last: string | undefined;
      roots: ReadonlySet<string>;
    }
  >();
  /** A step is queued for the next turn (a worker's results arrived). */
  #stepQueued = false;
  /** The core's fan-outs not taken in yet, oldest first (only when working in slices; #onEvents). */
  readonly #incoming: Incoming[] = [];

  constructor(options: SettlementPipelineOptions) {
    this.#o = options;
    this.#takeInPerUnit = options.takeInPerUnit ?? TAKE_IN_PER_UNIT;
    this.#turn = new TurnBudget(options.turnBudgetMs, () => this.step());
    this.#legsMax = options.batchLegsMax ?? BATCH_LEGS_MAX;
    this.#saltKey = createSecretKey(options.fillSaltKey ?? randomBytes(32));
    assert(this.#legsMax >= 2 && this.#legsMax <= BATCH_LEGS_MAX, `batchLegsMax: 2 to ${BATCH_LEGS_MAX}`);
    assert(
      options.engine.follows(options.openings),
      "the pipeline's NoteOpenings must be a state companion of its engine: a change note's opening reaches it only through the journaled outcome",
    );
    options.engine.onEvents((events) => {
      if (!this.#stopped) {
        this.#turn.begin();
        this.#onEvents(events);
      }
    });
    this.#detach = options.chain.onBeat(() => this.step());
  }

  /** Stops listening (a pipeline being replaced, or the venue stopping). */
  stop(): void {
    this.#stopped = true;
    this.#detach();
  }

  /**
   * Matches the pipeline holds for a market: locked on chain, queued or in a batch not yet final.
   * Counted when a scraper asks (the Prometheus metrics), so a walk over the set is fine.
   */
  heldMatches(marketId: string): number {
    const prefix = `${marketId}:`;
    let held = this.#incomingOf(marketId);
    for (const id of this.#owned) if (id.startsWith(prefix)) held += 1;
    return held;
  }

  /** Matches waiting in a queue or in an unfinished batch, per market. */
  queueDepth(marketId: string): number {
    const lane = this.#lanes.get(marketId);
    if (lane === undefined) return 0;
    const count = (groups: readonly Group[]) => groups.reduce((sum, g) => sum + g.legs.length, 0);
    const admitting = lane.admitting.reduce((sum, a) => sum + a.matches.length, 0);
    const doubtful = lane.doubtful.reduce((sum, d) => sum + d.group.legs.length, 0);
    const reporting = lane.reporting.reduce((sum, r) => sum + r.legs.length - r.next, 0);
    const failing = lane.failing.reduce((sum, f) => sum + f.matches.length - f.next, 0);
    return (
      this.#incomingOf(marketId) +
      reporting +
      failing +
      admitting +
      count(lane.queued) +
      count(lane.proving?.groups ?? []) +
      count(lane.inFlight?.groups ?? []) +
      count(lane.landed) +
      doubtful
    );
  }

  /**
   * Boot step: rebuilds the queue from the core's pending matches and the chain's state. Matches
   * whose notes the chain consumed have settled (an earlier batch landed) and wait for finality;
   * the rest are locked again if needed and queued. Batch numbers come from the chain's market
   * account, so a number the chain already used is never reused and none is skipped.
   */
  reconcile(): void {
    // Matches the core handed over are the pipeline's already: taken in first, so none comes twice.
    this.#takeIn(true);
    const byMarket = new Map<string, SettlingMatch[]>();
    for (const view of this.#o.engine.core.pendingMatches()) {
      if (this.#owned.has(key(view.marketId, view.matchId))) continue;
      const list = byMarket.get(view.marketId) ?? [];
      const fact = this.#o.facts?.get(view.marketId, view.matchId);
      list.push(fromPendingMatch(view, this.#o.chain.slot, fact));
      byMarket.set(view.marketId, list);
    }
    for (const matches of byMarket.values()) {
      // With every match's counterparts known (match-facts.ts), the groups are exactly the live ones.
      // Otherwise: the pending matches of a market are a union of whole groups (a group resolves at
      // once), so together they still conserve value.
      if (matches.every((m) => m.counterpartyMatchIds !== null)) {
        for (const group of connected(matches)) this.#admit(group, true);
      } else this.#admit(matches, true);
    }
    this.step();
  }

  /** One beat: follow batches in flight, then seal what waits. Runs on every chain slot and reorg. */
  step(): void {
    if (this.#stopped) return;
    this.#turn.begin();
    const incoming = this.#incoming.length;
    this.#o.engine.catchUp();
    // An auction committed by this catch-up may have used the turn (#onEvents counts it): the rest
    // of the step runs on the next one, which starts with a fresh budget and so makes progress.
    if (this.#incoming.length > incoming && this.#turn.exhausted()) return;
    this.#takeIn(false);
    if (!this.#allowed()) return;
    for (const [marketId, lane] of [...this.#lanes]) {
      this.#reportFailures(lane);
      this.#reportSome(marketId, lane);
      this.#admitWaiting(lane);
      this.#followDoubtful(lane);
      this.#followLanded(lane);
      if (lane.inFlight !== null) this.#follow(lane, lane.inFlight);
      this.#sendOrSeal(marketId, lane);
      this.#o.metrics?.setQueueDepth(marketId, this.queueDepth(marketId));
    }
  }

  // ---- Matches in ----

  #onEvents(events: readonly CoreEvent[]): void {
    // Working in slices, the match events are taken in on later turns (#takeIn): this turn is the
    // core's, and an auction's fan-out of thousands of matches already fills it. A fill message is
    // released here still, right after the core's fill event.
    const later = this.#turn.limited;
    const batches = new Map<string, Joining<SettlingMatch>>();
    let pending: Map<string, number> | null = null;
    for (const event of events) {
      if (event.type === 'match' || event.type === 'matches') {
        if (later) {
          const [marketId, count] =
            event.type === 'match' ? [event.marketId, 1] : [event.matches.marketId, event.matches.count];
          pending ??= new Map();
          pending.set(marketId, (pending.get(marketId) ?? 0) + count);
        } else joinMatches(batches, event, 0, Number.POSITIVE_INFINITY, this.#o.chain.slot);
      } else if (
        event.type === 'order' &&
        event.matchId !== undefined &&
        (event.kind === 'partially_filled' || event.kind === 'fully_filled')
      ) {
        this.#releaseFill(event.marketId, event.matchId);
      }
    }
    if (pending !== null) {
      const seenSlot = this.#o.chain.slot;
      this.#incoming.push({
        events,
        next: 0,
        nextMatch: 0,
        seenSlot,
        pending,
        batches,
        groups: null,
        nextGroup: 0,
      });
      this.#turn.worked();
      this.#stepSoon();
      return;
    }
    for (const joining of batches.values()) {
      for (const group of groupsOf(joining)) this.#admit(group, false);
    }
  }

  /**
   * Takes in the fan-outs the core handed over, a slice of events per unit of the turn's budget
   * (`all`: at once, at boot). Matches are joined into groups as they are read (a group joins
   * matches from anywhere in the auction), and the groups are admitted, a slice per unit, once every
   * event is read; from then on they are the pipeline's (#admit).
   */
  #takeIn(all: boolean): void {
    while (this.#incoming.length > 0) {
      const held = this.#incoming[0] as Incoming;
      const { events } = held;
      while (held.next < events.length) {
        if (!all && this.#turn.spent()) return;
        // A unit reads up to takeInPerUnit events, or as many matches of a batch's record.
        let budget = this.#takeInPerUnit;
        while (budget > 0 && held.next < events.length) {
          const event = events[held.next] as CoreEvent;
          if (event.type === 'matches') {
            const from = held.nextMatch;
            const to = Math.min(from + budget, event.matches.count);
            joinMatches(held.batches, event, from, to, held.seenSlot);
            budget -= Math.max(1, to - from);
            if (to < event.matches.count) {
              held.nextMatch = to;
              continue;
            }
          } else {
            if (event.type === 'match') joinMatches(held.batches, event, 0, 1, held.seenSlot);
            budget -= 1;
          }
          held.next += 1;
          held.nextMatch = 0;
        }
      }
      if (held.groups === null) {
        if (!all && this.#turn.spent()) return;
        held.groups = [...held.batches.values()].flatMap(groupsOf);
      }
      const { groups } = held;
      while (held.nextGroup < groups.length) {
        if (!all && this.#turn.spent()) return;
        const end = Math.min(held.nextGroup + this.#takeInPerUnit, groups.length);
        for (let i = held.nextGroup; i < end; i += 1) {
          const group = groups[i] as SettlingMatch[];
          // Counted in `admitting` from now on, no longer as incoming (queueDepth, heldMatches).
          const marketId = (group[0] as SettlingMatch).marketId;
          held.pending.set(marketId, (held.pending.get(marketId) ?? 0) - group.length);
          this.#admit(group, false);
        }
        held.nextGroup = end;
      }
      this.#incoming.shift();
    }
  }

  /** Match events of the market the core handed over and the pipeline has not taken in yet. */
  #incomingOf(marketId: string): number {
    let count = 0;
    for (const held of this.#incoming) count += held.pending.get(marketId) ?? 0;
    return count;
  }

  /** Takes one group in: planned, locked, then queued; a group that cannot be locked fails at once. */
  #admit(matches: readonly SettlingMatch[], recovered: boolean): void {
    const first = matches[0];
    if (first === undefined) return;
    const marketId = first.marketId;
    for (const match of matches) this.#owned.add(key(marketId, match.matchId));
    const lane = this.#lane(marketId);
    const admission: Admission = {
      marketId,
      matches,
      recovered,
      group: null,
      planned: [],
      bounded: false,
      hashing: false,
      waitedAt: null,
    };
    lane.admitting.push(admission);
    // Held: it waits in `admitting`, and the first allowed step takes it from there.
    if (!this.#allowed()) return;
    // Working in slices, a new group waits for the next turn's step: this turn is the core's (an
    // auction's commit and its fan-out of thousands of matches), and the budget cannot see that.
    if (this.#turn.limited) {
      this.#stepSoon();
      return;
    }
    const admitted = this.#tryAdmit(admission);
    this.#turn.worked();
    if (!admitted) return;
    lane.admitting.splice(lane.admitting.indexOf(admission), 1);
    if (queuedLegs(lane) >= this.#legsMax) this.#seal(marketId, lane);
  }

  /** Beat step for groups still waiting on the chain's view or on their lock's outcome. */
  #admitWaiting(lane: Lane): void {
    const version = this.#o.chain.viewVersion;
    const waiting = lane.admitting;
    // Walked by index up to today's length, and changed only after the walk: a step taken inside
    // (a failure's report) may read the list (queueDepth) or add to it.
    const count = waiting.length;
    let left: Set<Admission> | null = null;
    for (let at = 0; at < count; at += 1) {
      const admission = waiting[at] as Admission;
      // A group that waited on the chain at this view version would only wait again, so it is
      // passed over without a call or an allocation. While a backlog settled, every turn used to
      // ask each one again (its tags, its lock request's key): most of the pipeline's time on the
      // thread, and the garbage whose collections stopped it (issue 21).
      if (version !== undefined && admission.waitedAt === version) continue;
      // Once this turn's work is done, the rest wait for the next turn: walking thousands of
      // waiting groups on every turn would cost the square of the backlog. Each group is a unit
      // (locking one signs a request), so a turn of locks alone stops at its budget too.
      if (this.#turn.exhausted()) break;
      const admitted = this.#tryAdmit(admission);
      this.#turn.worked();
      if (admitted) {
        left ??= new Set();
        left.add(admission);
      }
    }
    // Most walks admit nothing: then the list stays as it is, and nothing was allocated.
    if (left === null) return;
    let kept = 0;
    for (const admission of waiting) {
      if (left.has(admission)) continue;
      waiting[kept] = admission;
      kept += 1;
    }
    waiting.length = kept;
  }

  /** Moves an admission as far as the chain's view allows; true once it left (queued, landed or failed). */
  #tryAdmit(admission: Admission): boolean {
    const { marketId, matches } = admission;
    const lane = this.#lane(marketId);
    // Read before asking: a view that changes while this group asks is one it has not seen yet.
    const version = this.#o.chain.viewVersion ?? null;
    if (admission.group === null) {
      if (!this.#sees({ trees: matches.map((m) => m.note.treeId) })) {
        admission.waitedAt = version;
        return false;
      }
      const market = this.#o.engine.core.marketConfig(marketId);
      assert(market !== undefined, `settlement of unknown market ${marketId}`);
      const planned = this.#plan(market, admission);
      if (planned === 'more') return false;
      if (typeof planned === 'string') {
        // A group the venue cannot settle is its own doing: said to the operator (no amounts, no owners).
        this.#o.log?.(
          `settlement: a group of ${marketId} cannot be settled (${planned}); its matches fail as chain_rejected`,
        );
        this.#failMatches(matches, 'chain_rejected');
        return true;
      }
      admission.group = { marketId, legs: planned, recovered: admission.recovered };
    }
    if (!this.#sees({ tags: groupTags(admission.group) })) {
      admission.waitedAt = version;
      return false;
    }
    if (admission.recovered) {
      // The chain settles a group whole, in one batch. So among recovered matches, those whose notes
      // it consumed are whole groups that landed before the restart, and the rest are whole groups
      // too, even when unknown counterparts made several groups come in as one (reconcile).
      const landed = admission.group.legs.filter((p) => this.#consumed(p));
      if (landed.length > 0) lane.landed.push({ marketId, legs: landed });
      if (landed.length === admission.group.legs.length) return true;
      if (landed.length > 0) {
        admission.group = {
          marketId,
          legs: admission.group.legs.filter((p) => !this.#consumed(p)),
          recovered: true,
        };
      }
    }
    const group = admission.group;
    const open = group.legs.map((p) => p.match);
    // Checked after the landed legs are set apart: a landing before a restart needs no proof.
    const unprovable = unprovableReason(group.legs);
    if (unprovable !== null) {
      this.#o.log?.(
        `settlement: a group of ${marketId} cannot be proved (${unprovable}); its matches fail as chain_rejected`,
      );
      this.#failMatches(open, 'chain_rejected');
      return true;
    }
    // Counted once per admission: queueDepth walks the lane, and a remote chain's lock reply can
    // take a few beats, so counting on every retry would cost the square of the backlog per beat.
    if (!admission.bounded) {
      admission.bounded = true;
      if (this.queueDepth(marketId) > QUEUED_MATCHES_PER_MARKET_MAX) {
        this.#failMatches(open, 'chain_rejected');
        return true;
      }
    }
    const refusal = this.#lock(group);
    if (refusal === 'pending') {
      admission.waitedAt = version;
      return false;
    }
    if (refusal !== null) {
      this.#failMatches(open, refusal);
      return true;
    }
    lane.queued.push(group);
    return true;
  }

  /** True when the window holds the leg's root, or when no window is known yet (the chain checks). */
  #rootInWindow(planned: PlannedLeg): boolean {
    const treeId = planned.match.note.treeId;
    const window = this.#o.roots?.rootWindow(treeId) ?? [];
    if (window.length === 0) return true;
    // Every waiting group asks again on every beat: a walk of the window per leg was a tenth of the
    // sequencer's settlement time. The set is rebuilt whenever the window is another (its array,
    // length or ends differ), so it never answers for a window that moved.
    const first = window[0]?.root;
    const last = window.at(-1)?.root;
    let cached = this.#windows.get(treeId);
    if (
      cached === undefined ||
      cached.window !== window ||
      cached.length !== window.length ||
      cached.first !== first ||
      cached.last !== last
    ) {
      cached = { window, length: window.length, first, last, roots: new Set(window.map((e) => e.root)) };
      this.#windows.set(treeId, cached);
    }
    return cached.roots.has(planned.merkleRoot);
  }

  #sees(keys: ChainKeys): boolean {
    return this.#o.chain.sees?.(keys) ?? true;
  }

  #allowed(): boolean {
    return this.#o.guard?.allowsSettlement() ?? true;
  }

  /**
   * Plans the admission's legs from where it stopped; 'more' when the turn's budget ran out first
   * (the next turn goes on), a reason when a leg cannot be planned, else every leg.
   */
  #plan(market: MarketConfig, admission: Admission): PlannedLeg[] | string | 'more' {
    const { matches } = admission;
    const legs = admission.planned;
    if (matches.length > this.#legsMax) return 'group larger than a batch';
    if (this.#o.work !== undefined) return this.#planOnWorker(market, admission, this.#o.work);
    while (legs.length < matches.length) {
      if (this.#turn.spent()) return 'more';
      const match = matches[legs.length] as SettlingMatch;
      const opening = this.#o.openings.get(match.note.commitment);
      if (opening === undefined) return 'note opening unknown';
      // A change note is not under the root its order was proved against; the chain's current
      // root of its shard holds it (it was final before the core re-booked the remainder).
      const root = opening.derived ? this.#o.chain.currentRoot(match.note.treeId) : match.note.merkleRoot;
      const leg = planLeg(this.#o.hasher, market, match, opening, root);
      if (typeof leg === 'string') return leg;
      legs.push(leg);
    }
    return legs;
  }

  /**
   * Hands the admission's legs to the settlement worker at once: their plan inputs are made here,
   * their hashes there, and the planned legs are appended in match order when the reply comes (a
   * later step then locks the group). 'more' until then; a reason when a leg cannot be planned.
   */
  #planOnWorker(
    market: MarketConfig,
    admission: Admission,
    work: SettlementWork,
  ): PlannedLeg[] | string | 'more' {
    const { matches, planned } = admission;
    if (planned.length === matches.length) return planned;
    if (admission.hashing) return 'more';
    const inputs: { match: SettlingMatch; input: LegPlanInput; root: string }[] = [];
    for (const match of matches.slice(planned.length)) {
      const opening = this.#o.openings.get(match.note.commitment);
      if (opening === undefined) return 'note opening unknown';
      const input = legPlanInput(market, match, opening);
      if (typeof input === 'string') return input;
      // As in #plan: a change note is under its shard's current root, not its order's.
      const root = opening.derived ? this.#o.chain.currentRoot(match.note.treeId) : match.note.merkleRoot;
      inputs.push({ match, input, root });
    }
    // A worker at its bound takes nothing more: the group waits in `admitting` for a later beat.
    if (!work.accepts(inputs.length)) return 'more';
    admission.hashing = true;
    work.hashLegs(inputs.map((leg) => leg.input.hash)).then(
      (hashes) => {
        admission.hashing = false;
        for (const [i, leg] of inputs.entries()) {
          planned.push(plannedLegOf(leg.match, leg.input, hashes[i] as (typeof hashes)[number], leg.root));
        }
        this.#stepSoon();
      },
      (error: unknown) => this.#workFailed(error),
    );
    return 'more';
  }

  /** One step on a later turn (once, however many worker replies ask for it in this one). */
  #stepSoon(): void {
    if (this.#stepQueued || this.#stopped) return;
    this.#stepQueued = true;
    setImmediate(() => {
      this.#stepQueued = false;
      this.step();
    });
  }

  /**
   * The worker's inputs are the venue's own, so a job that fails is a bug: rethrown, it crashes
   * the process (programmer errors crash). A pool closing as the venue stops is no failure.
   */
  #workFailed(error: unknown): void {
    if (this.#stopped || isVenueError(error)) return;
    throw error;
  }

  /**
   * Locks every note of the group until its match's lock expiry (all or none), unless a live lock of
   * this market already holds it (a recovered match). Returns the failure reason, null once every
   * lock holds, or 'pending' while a remote chain has not answered the request yet.
   */
  #lock(group: Group): SettlementFailureReason | 'pending' | null {
    const { chain } = this.#o;
    const needed = group.legs.filter((planned) => {
      const lock = chain.lock(planned.noteUseTag);
      return !(
        lock !== undefined &&
        lock.market_id === group.marketId &&
        !lock.reverted &&
        lock.expiry_slot >= planned.match.lockExpirySlot
      );
    });
    if (needed.length === 0) return null;
    if (needed.some((planned) => planned.match.lockExpirySlot <= chain.slot)) return 'lock_expired';
    // Spec 2.1: the order's root is checked against the chain's window when its note is locked, so a
    // match whose root has left the window fails now instead of dragging a batch into root_expired.
    if (needed.some((planned) => !this.#rootInWindow(planned))) return 'root_expired';
    const outcome = chain.lockNotes(
      group.marketId,
      needed.map((p) => ({ note_use_tag: p.noteUseTag, expiry_slot: p.match.lockExpirySlot })),
    );
    if (outcome.ok === 'pending') return 'pending';
    if (outcome.ok) return null;
    const reason = reasonOf(outcome.reason);
    // A refusal that is no settlement reason (a malformed request) is the venue's bug: said out loud.
    if (reason !== outcome.reason) {
      this.#o.log?.(
        `settlement: the chain refused a lock request of ${group.marketId} (${outcome.reason}); its matches fail as chain_rejected`,
      );
    }
    return reason;
  }

  // ---- Batches out ----

  /** Sends the proved batch when its turn has come, then seals the next one if it may. */
  #sendOrSeal(marketId: string, lane: Lane): void {
    if (lane.proving !== null) this.#proved(marketId, lane, lane.proving);
    this.#seal(marketId, lane);
  }

  /**
   * True while a new batch may not go to the chain. At most one landed batch of a market is ever
   * missing from the journal, the one in flight (chain-state-check.ts relies on it): a batch waits
   * until earlier landings are recorded and those records are durable, and until the matches
   * recovered at boot are placed.
   */
  #mustWait(lane: Lane): boolean {
    return (
      lane.inFlight !== null ||
      lane.landed.length > 0 ||
      lane.doubtful.length > 0 ||
      lane.recording ||
      lane.reporting.length > 0 ||
      lane.admitting.some((a) => a.recovered)
    );
  }

  /**
   * Seals the market's waiting groups (whole groups, up to the leg cap) into one batch: its number
   * and deadline are fixed here and its legs go to the prover; #proved signs and submits it. With a
   * prover on workers the next batch is proved while the one before is in flight or being recorded,
   * under the number that follows it: proving, seconds a leg, overlaps the wait for finality. Should
   * the batch in flight fail instead, that number is still free and the proofs are made again.
   */
  #seal(marketId: string, lane: Lane): void {
    if (lane.queued.length === 0 || lane.proving !== null) return;
    const { chain, prover } = this.#o;
    // With a turn budget, even a prover that answers at once is asked leg by leg over several turns.
    const proveNow = this.#turn.limited ? undefined : prover.proveNow;
    const ahead = proveNow === undefined && lane.inFlight !== null;
    if (ahead) {
      if (
        lane.landed.length > 0 ||
        lane.doubtful.length > 0 ||
        lane.reporting.length > 0 ||
        lane.admitting.some((a) => a.recovered)
      )
        return;
    } else if (this.#mustWait(lane)) return;
    // Working in slices, the groups of one beat are planned over several turns: the batch waits for
    // them (unless it is full already), or it would go out with the first group alone.
    if (
      this.#turn.limited &&
      queuedLegs(lane) < this.#legsMax &&
      (lane.admitting.some((a) => a.group === null) || this.#incomingOf(marketId) > 0)
    )
      return;
    // The batch number comes from the market account: a view that does not hold it yet waits.
    if (!ahead && !this.#sees({ markets: [marketId] })) return;
    const load = prover.load();
    const groups: Group[] = [];
    let legs = 0;
    while (lane.queued.length > 0) {
      const next = lane.queued[0] as Group;
      if (groups.length > 0 && legs + next.legs.length > this.#legsMax) break;
      groups.push(next);
      legs += next.legs.length;
      lane.queued.shift();
    }
    // A prover at capacity takes nothing more: the groups wait in the queue for a later beat.
    if (load.queued + load.inFlight + legs > load.queueMax) {
      lane.queued.unshift(...groups);
      return;
    }
    const planned = groups.flatMap((group) => group.legs);
    // The batch must land while every lock holds: its deadline is the earliest lock expiry.
    const deadline = planned.reduce(
      (min, p) => (p.match.lockExpirySlot < min ? p.match.lockExpirySlot : min),
      planned[0]?.match.lockExpirySlot ?? 0n,
    );
    const proving: Proving = {
      groups,
      batchSeq:
        ahead && lane.inFlight !== null ? lane.inFlight.batch.batch_seq + 1n : chain.nextBatchSeq(marketId),
      deadline,
      legs: null,
      failure: null,
      signing: false,
      signed: null,
    };
    lane.proving = proving;
    if (proveNow !== undefined) {
      // A prover that answers at once (the stand-in): sealed, signed and submitted in this beat.
      try {
        proving.legs = this.#proveNow(marketId, proving, planned, proveNow.bind(prover));
      } catch (error) {
        proving.failure = error instanceof Error ? error : new Error(String(error));
      }
      this.#proved(marketId, lane, proving);
      return;
    }
    this.#prove(marketId, proving, planned)
      .then(
        (legs) => {
          proving.legs = legs;
        },
        (error: unknown) => {
          proving.failure = error instanceof Error ? error : new Error(String(error));
        },
      )
      .finally(() => {
        // At once rather than at the next slot: a proof takes seconds and the lock window is finite.
        if (!this.#stopped && lane.proving === proving) this.step();
      });
  }

  /** Proves every leg of a sealed batch on the prover's workers. */
  async #prove(
    marketId: string,
    proving: Proving,
    planned: readonly PlannedLeg[],
  ): Promise<ChainSettlementLeg[]> {
    const requestOf = this.#proofRequests(marketId, proving);
    const proofs: Promise<MatchProof>[] = [];
    for (const p of planned) {
      // Handing a leg to a worker (or proving a stand-in) costs main-thread time: a turn at a time.
      await this.#turn.next();
      const { header, leg } = requestOf(p);
      proofs.push(this.#o.prover.prove(header, leg));
    }
    const proved = await Promise.all(proofs);
    const legs: ChainSettlementLeg[] = [];
    for (const [i, p] of planned.entries()) {
      await this.#turn.next();
      legs.push(chainLegOf(p, proved[i] as MatchProof));
    }
    return legs;
  }

  #proveNow(
    marketId: string,
    proving: Proving,
    planned: readonly PlannedLeg[],
    proveNow: NonNullable<MatchProver['proveNow']>,
  ): ChainSettlementLeg[] {
    const requestOf = this.#proofRequests(marketId, proving);
    return planned.map((p) => {
      const request = requestOf(p);
      return chainLegOf(p, proveNow(request.header, request.leg));
    });
  }

  /** Each leg's proof request; both legs of a fill share one fresh salt, so their tags are equal. */
  #proofRequests(
    marketId: string,
    proving: Proving,
  ): (planned: PlannedLeg) => { header: MatchBatchHeader; leg: MatchLeg } {
    const market = this.#o.engine.core.marketConfig(marketId);
    assert(market !== undefined, `settlement of unknown market ${marketId}`);
    // Both legs of a fill ask for the pair's salt: the same bytes give the same salt, whichever asks.
    const saltOf = (a: bigint, b: bigint): bigint => {
      const pair = a < b ? `${a}:${b}` : `${b}:${a}`;
      const context = `${marketId}|${proving.batchSeq}|${proving.deadline}|${pair}`;
      return fieldFromDigest(createHmac('sha256', this.#saltKey).update(context).digest());
    };
    const batch = { batchSeq: proving.batchSeq, deadlineSlot: proving.deadline };
    return (p) => ({ header: proofHeaderOf(market, p, batch), leg: proofLegOf(p, saltOf) });
  }

  /** A batch being proved: signed and sent once proved; failed if proving failed or outlived it. */
  #proved(marketId: string, lane: Lane, proving: Proving): void {
    const { chain, metrics } = this.#o;
    if (proving.failure !== null) {
      lane.proving = null;
      // Never a user's fault: the venue built a leg its own rules refuse, or a prover broke.
      this.#o.log?.(
        `settlement: the proofs of ${marketId} batch ${proving.batchSeq} could not be made (${proving.failure.message}); its matches fail as proof_invalid`,
      );
      metrics?.batchFailed(marketId);
      this.#landedOrFailed(lane, proving.groups, 'proof_invalid');
      return;
    }
    if (chain.slot > proving.deadline) {
      // The locks expired while the proofs were being made or waited their turn: the batch could
      // only fail on chain.
      lane.proving = null;
      metrics?.batchFailed(marketId);
      this.#landedOrFailed(lane, proving.groups, 'confirmation_timeout');
      return;
    }
    if (proving.legs === null || this.#mustWait(lane)) return;
    if (!this.#sees({ markets: [marketId] })) return;
    if (chain.nextBatchSeq(marketId) !== proving.batchSeq) {
      // Proved ahead under the number after a batch that then failed (or any other move of the
      // sequence): proofs bound to a stale number would only fail, so the groups are proved again.
      lane.proving = null;
      lane.queued.unshift(...proving.groups);
      this.#seal(marketId, lane);
      return;
    }
    const unsigned = {
      market_id: marketId,
      batch_seq: proving.batchSeq,
      deadline_slot: proving.deadline,
      match_count: proving.legs.length,
      legs: proving.legs,
    };
    const batch = this.#signed(proving, unsigned);
    // Signed on a worker: this step ends here, and the step after the signature goes on.
    if (batch === null) return;
    lane.proving = null;
    const inFlight: InFlight = { batch, groups: proving.groups };
    lane.inFlight = inFlight;
    metrics?.batchSubmitted(marketId, proving.legs.length);
    this.#submit(inFlight);
    this.#follow(lane, inFlight);
  }

  /**
   * The proved batch, signed: at once by the chain port, or by its worker (`signLater`), in which
   * case null until the signature is back. Ed25519 is deterministic, so either way gives the same
   * bytes, and the checks before it are made again on the step that sends it.
   */
  #signed(proving: Proving, unsigned: UnsignedChainBatch): SignedChainBatch | null {
    const { signLater } = this.#o.chain;
    if (signLater === undefined) return this.#o.chain.sign(unsigned);
    if (proving.signed !== null) return proving.signed;
    if (!proving.signing) {
      proving.signing = true;
      signLater(unsigned).then(
        (batch) => {
          proving.signed = batch;
          this.#stepSoon();
        },
        (error: unknown) => this.#workFailed(error),
      );
    }
    return null;
  }

  /** Submits (or resubmits) a signed batch: the same bytes are the same transaction on chain. */
  #submit(inFlight: InFlight): void {
    try {
      this.#o.chain.submit(inFlight.batch);
    } catch (error) {
      if (!isChainRefusal(error)) throw error;
      // The chain refused the request (not a settlement outcome): it is retried next slot with the
      // same signed bytes, which the chain deduplicates by transaction id.
    }
  }

  /** Follows the batch in flight: finality settles it, a failure fails it, a lost landing retries. */
  #follow(lane: Lane, inFlight: InFlight): void {
    const { chain } = this.#o;
    // Until the view holds the transaction, "not found" would be a guess.
    if (!this.#sees({ txIds: [inFlight.batch.tx_id] })) return;
    const record: ChainSettlementRecord | undefined = chain.settlement(inFlight.batch.tx_id);
    if (record?.state === 'pending') return;
    if (record?.state === 'landed') {
      const included = record.included_slot ?? chain.slot;
      if (chain.confirmationOf(included) !== 'finalized') return;
      lane.inFlight = null;
      this.#settle(inFlight.groups, record, record.batch_seq);
      return;
    }
    // Failed or unknown: what happens next depends on the notes (consumed by an earlier landing,
    // locks still held), so they are read first, in the same view as the transaction (D130). While
    // the batch is pending or landed its notes are not asked: a landed batch of a thousand legs
    // would otherwise bring their thousand entries back on every poll until it is final.
    if (!this.#sees({ txIds: [inFlight.batch.tx_id], tags: tagsOf(inFlight.groups) })) return;
    if (record?.state === 'failed') {
      lane.inFlight = null;
      this.#o.metrics?.batchFailed(inFlight.batch.market_id);
      this.#landedOrFailed(lane, inFlight.groups, record.reason ?? 'chain_rejected');
      return;
    }
    // Unknown to the chain: a reorg dropped its landing, or the submission never arrived. Past its
    // deadline it can never land, so its matches fail now instead of being retried for ever.
    if (chain.slot > inFlight.batch.deadline_slot) {
      lane.inFlight = null;
      this.#o.metrics?.batchFailed(inFlight.batch.market_id);
      this.#landedOrFailed(lane, inFlight.groups, 'confirmation_timeout');
      return;
    }
    // A rolled-back slot may have taken the locks with it: place them again (same market, same
    // expiry) before the same signed batch goes out again. A remote chain's locks are seen at a
    // later beat; resubmitting before would only land a batch that fails for want of them.
    const locks = inFlight.groups.map((group) => this.#lock(group));
    if (locks.includes('pending')) return;
    this.#submit(inFlight);
    const retried = chain.settlement(inFlight.batch.tx_id);
    if (retried !== undefined && retried.state !== 'pending') this.#follow(lane, inFlight);
  }

  /** Groups that settled through an earlier landing: final once their notes' consumption is. */
  #followLanded(lane: Lane): void {
    const { chain } = this.#o;
    for (const group of [...lane.landed]) {
      if (!this.#sees({ tags: groupTags(group), markets: [group.marketId] })) continue;
      const slots = group.legs.map((p) => chain.consumedSlot(p.noteUseTag));
      if (slots.some((slot) => slot === undefined)) {
        // A reorg undid the landing: settle the group again.
        lane.landed.splice(lane.landed.indexOf(group), 1);
        const admission: Admission = {
          marketId: group.marketId,
          matches: group.legs.map((p) => p.match),
          recovered: false,
          group,
          planned: [...group.legs],
          bounded: false,
          hashing: false,
          waitedAt: null,
        };
        lane.admitting.push(admission);
        if (this.#tryAdmit(admission)) lane.admitting.splice(lane.admitting.indexOf(admission), 1);
        continue;
      }
      const included = (slots as bigint[]).reduce((max, s) => (s > max ? s : max), 0n);
      if (chain.confirmationOf(included) !== 'finalized') continue;
      lane.landed.splice(lane.landed.indexOf(group), 1);
      // Which batch consumed the notes is not known here, only that it landed and is final. No batch
      // of this market is sealed while landings wait (#seal), so the chain's newest landed batch is
      // final too and not older than that one: the journal may record it as reached.
      const newest = (lane.inFlight?.batch.batch_seq ?? chain.nextBatchSeq(group.marketId)) - 1n;
      this.#settle([group], undefined, newest);
    }
  }

  /**
   * Groups of a batch that will never land. Inputs the chain consumed anyway mean an earlier landing
   * of those matches (an attempt before a restart), and since the chain settles groups whole, the
   * consumed legs are whole groups: they wait for finality as landed. The other legs fail.
   */
  #landedOrFailed(lane: Lane, groups: readonly Group[], reason: SettlementFailureReason): void {
    for (const group of groups) {
      const landed = group.legs.filter((p) => this.#consumed(p));
      if (landed.length > 0) lane.landed.push({ marketId: group.marketId, legs: landed });
      const rest = group.legs.filter((p) => !this.#consumed(p));
      if (rest.length === 0) continue;
      // A batch sent before the restart may still land a recovered group while its locks hold.
      if (group.recovered === true && this.#locksHold(group.marketId, rest)) {
        lane.doubtful.push({ group: { marketId: group.marketId, legs: rest, recovered: true }, reason });
      } else
        this.#failMatches(
          rest.map((p) => p.match),
          reason,
        );
    }
  }

  /** Doubtful groups: landed once the chain consumed their notes, failed once a lock stops holding. */
  #followDoubtful(lane: Lane): void {
    for (const doubt of [...lane.doubtful]) {
      const { group } = doubt;
      if (!this.#sees({ tags: groupTags(group), markets: [group.marketId] })) continue;
      const landed = group.legs.filter((p) => this.#consumed(p));
      const rest = group.legs.filter((p) => !this.#consumed(p));
      if (rest.length > 0 && this.#locksHold(group.marketId, rest)) continue;
      lane.doubtful.splice(lane.doubtful.indexOf(doubt), 1);
      if (landed.length > 0) lane.landed.push({ marketId: group.marketId, legs: landed });
      if (rest.length > 0)
        this.#failMatches(
          rest.map((p) => p.match),
          doubt.reason,
        );
    }
  }

  /** Every leg's note is locked for this market through at least the current slot, not reverted. */
  #locksHold(marketId: string, legs: readonly PlannedLeg[]): boolean {
    const { chain } = this.#o;
    return legs.every((p) => {
      const lock = chain.lock(p.noteUseTag);
      return (
        lock !== undefined && lock.market_id === marketId && !lock.reverted && lock.expiry_slot >= chain.slot
      );
    });
  }

  #consumed(planned: PlannedLeg): boolean {
    return this.#o.chain.consumedSlot(planned.noteUseTag) !== undefined;
  }

  // ---- Outcomes to the core ----

  /**
   * Final on chain: each match's fill memo is prepared, then the core hears `match_settled`, with the
   * number of a final landed batch at least as new as the one that settled it (`reached`).
   */
  #settle(groups: readonly Group[], record: ChainSettlementRecord | undefined, reached: bigint): void {
    const marketId = groups[0]?.marketId;
    if (marketId === undefined) return;
    const lane = this.#lane(marketId);
    lane.reporting.push({
      groups,
      legs: groups.flatMap((g) => g.legs),
      record,
      reached,
      next: 0,
      leaves: null,
    });
    this.#reportSome(marketId, lane);
  }

  /**
   * Reports final legs, oldest batch first, until done or the turn's budget is used (the next turn
   * goes on). The lane seals nothing until every outcome is reported and durable (#holdUntilDurable).
   */
  #reportSome(marketId: string, lane: Lane): void {
    const { chain, metrics } = this.#o;
    while (lane.reporting.length > 0) {
      const job = lane.reporting[0] as Reporting;
      job.leaves ??= new Map((job.record?.appended ?? []).map((leaf) => [leaf.commitment, leaf.leaf_index]));
      const leaves = job.leaves;
      const leafIndex = (commitment: string) => leaves.get(commitment) ?? chain.leafIndex(commitment);
      while (job.next < job.legs.length) {
        if (this.#turn.spent()) return;
        this.#reportSettled(
          job.legs[job.next] as PlannedLeg,
          job.record?.batch_seq ?? null,
          job.reached,
          leafIndex,
        );
        job.next += 1;
      }
      lane.reporting.shift();
      const oldest = job.legs.reduce<bigint | null>(
        (min, p) => (min === null || p.match.seenSlot < min ? p.match.seenSlot : min),
        null,
      );
      if (oldest !== null) {
        const finalSlot = chain.slot;
        metrics?.batchFinalized(marketId, finalSlot > oldest ? finalSlot - oldest : 0n);
        this.#holdUntilDurable(marketId);
      }
    }
  }

  /** One final leg: its fill memo is prepared, then the core hears `match_settled`. */
  #reportSettled(
    planned: PlannedLeg,
    batchSeq: bigint | null,
    reached: bigint,
    leafIndex: (commitment: string) => bigint | undefined,
  ): void {
    const { match } = planned;
    this.#prepareFill(planned, batchSeq, leafIndex);
    this.#o.openings.forget(match.note.commitment);
    this.#report(
      match,
      {
        type: 'match_settled',
        marketId: match.marketId,
        matchId: match.matchId,
        changeNote: {
          commitment: planned.change.hex.commitment,
          value: planned.change.value,
          treeId: match.note.treeId,
        },
      },
      {
        landedBatchSeq: reached,
        // The opening of the change note, written once: the openings companion follows it from the
        // journaled record, live and after a restart alike (note-openings.ts).
        ...(planned.change.value > 0n
          ? {
              changeOpening: {
                commitment: planned.change.hex.commitment,
                ownerCommitment: planned.change.hex.ownerCommitment,
                innerHash: planned.change.hex.innerHash,
              },
            }
          : {}),
      },
    );
  }

  /**
   * A batch sealed before the outcomes just recorded are on disk could land while a crash loses
   * them: the journal would then miss two landings. So the lane seals again once they are durable.
   */
  #holdUntilDurable(marketId: string): void {
    const { engine } = this.#o;
    if (engine.journal === null) return;
    const lane = this.#lane(marketId);
    lane.recording = true;
    engine.settled().then(
      () => {
        lane.recording = false;
        if (!this.#stopped && this.#allowed()) this.#sendOrSeal(marketId, lane);
      },
      // A failed (or closed) journal records nothing more: the lane stays held, as the venue has
      // stopped trading. Anything else is a listener's bug: rethrown, it crashes the process.
      (error: unknown) => {
        if (!isVenueError(error)) throw error;
      },
    );
  }

  #failMatches(matches: readonly SettlingMatch[], reason: SettlementFailureReason): void {
    if (!this.#turn.limited) {
      for (const match of matches) this.#reportFailed(match, reason);
      return;
    }
    // In slices: told now while this turn's budget lasts, the rest on the next turns (#reportFailures).
    const first = matches[0];
    if (first === undefined) return;
    assert(
      matches.every((m) => m.marketId === first.marketId),
      'the matches failed together are of one market',
    );
    const lane = this.#lane(first.marketId);
    lane.failing.push({ matches, reason, next: 0 });
    this.#reportFailures(lane);
  }

  /** Tells the core the lane's failures, oldest first, one unit of the turn budget each. */
  #reportFailures(lane: Lane): void {
    while (lane.failing.length > 0) {
      const job = lane.failing[0] as Failing;
      while (job.next < job.matches.length) {
        if (this.#turn.spent()) return;
        this.#reportFailed(job.matches[job.next] as SettlingMatch, job.reason);
        job.next += 1;
      }
      lane.failing.shift();
    }
  }

  #reportFailed(match: SettlingMatch, reason: SettlementFailureReason): void {
    this.#report(match, { type: 'match_failed', marketId: match.marketId, matchId: match.matchId, reason });
  }

  /** Records an outcome once; the core asserts a match is resolved only once. */
  #report(
    match: SettlingMatch,
    command:
      | {
          type: 'match_settled';
          marketId: string;
          matchId: bigint;
          changeNote: { commitment: string; value: bigint; treeId: number };
        }
      | { type: 'match_failed'; marketId: string; matchId: bigint; reason: SettlementFailureReason },
    annotations?: Annotations,
  ): void {
    const id = key(match.marketId, match.matchId);
    if (!this.#owned.delete(id)) return;
    if (!this.#o.engine.core.isPendingMatch(match.marketId, match.matchId)) return;
    this.#o.engine.record(command, annotations);
    if (command.type === 'match_settled') this.#o.metrics?.matchSettled(match.marketId);
    else this.#o.metrics?.matchFailed(match.marketId, command.reason);
  }

  // ---- Fill memos ----

  #prepareFill(
    planned: PlannedLeg,
    batchSeq: bigint | null,
    leafIndex: (commitment: string) => bigint | undefined,
  ): void {
    const { match } = planned;
    // A match recovered at boot has no batch price (the core keeps none): its owner re-derives the
    // notes from the order events instead (docs/settlement.md section 4).
    if (match.clearingPrice === null || batchSeq === null) return;
    if (this.#fills.size >= FILLS_AWAITING_EVENT_MAX) return;
    const context = { orderId: match.orderId, matchId: match.matchId };
    const plaintext = memoOf(planned, match.clearingPrice, leafIndex);
    const held: HeldFill = { accountId: match.accountId, frame: null, released: false };
    const serverTimeMs = this.#o.clock.nowMs();
    const frameOf = (memo: FillMemo) =>
      fillFrame({
        orderId: match.orderId,
        marketId: match.marketId,
        matchId: match.matchId,
        batchSeq,
        serverTimeMs,
        memo,
      });
    this.#fills.set(key(match.marketId, match.matchId), held);
    const { work } = this.#o;
    if (work === undefined || !work.accepts(1)) {
      held.frame = frameOf(sealFillMemo(match.viewingPubkey, context, plaintext));
      return;
    }
    // Sealed on the worker: the frame goes out when both the memo and the core's fill event are.
    work.sealMemo({ viewingPubkey: match.viewingPubkey, context, plaintext }).then(
      (memo) => {
        held.frame = frameOf(memo);
        if (held.released) this.#o.publisher?.publishFill(held.frame, held.accountId);
      },
      (error: unknown) => this.#workFailed(error),
    );
  }

  /** Sent only after the core's fill event is out, so the fills channel never runs ahead of it. */
  #releaseFill(marketId: string, matchId: bigint): void {
    const id = key(marketId, matchId);
    const fill = this.#fills.get(id);
    if (fill === undefined) return;
    this.#fills.delete(id);
    fill.released = true;
    if (fill.frame !== null) this.#o.publisher?.publishFill(fill.frame, fill.accountId);
  }

  #lane(marketId: string): Lane {
    let lane = this.#lanes.get(marketId);
    if (lane === undefined) {
      lane = {
        admitting: [],
        queued: [],
        proving: null,
        inFlight: null,
        landed: [],
        recording: false,
        doubtful: [],
        reporting: [],
        failing: [],
      };
      this.#lanes.set(marketId, lane);
    }
    return lane;
  }
}

/** A fill message waiting for the core's fill event (released) and, sealed on a worker, for its memo. */
interface HeldFill {
  readonly accountId: string;
  frame: FillFrame | null;
  released: boolean;
}

function key(marketId: string, matchId: bigint): string {
  return `${marketId}:${matchId}`;
}

function tagsOf(groups: readonly Group[]): string[] {
  return groups.flatMap(groupTags);
}

/** A group's legs never change, so its note-use tags are listed once (a group asks on many beats). */
const TAGS = new WeakMap<Group, readonly string[]>();

function groupTags(group: Group): readonly string[] {
  let tags = TAGS.get(group);
  if (tags === undefined) {
    tags = group.legs.map((p) => p.noteUseTag);
    TAGS.set(group, tags);
  }
  return tags;
}

/**
 * Why a group's legs cannot be proved, or null: a match recovered from a snapshot older than the
 * per-counterparty fills, or an order with more counterparties in one auction than a proof has fill
 * slots (MATCH_FILLS_MAX; docs/settlement.md section 11).
 */
function unprovableReason(legs: readonly PlannedLeg[]): string | null {
  for (const { match } of legs) {
    if (match.fills === null || match.clearingPrice === null) {
      return `match ${match.matchId} was recovered without its fills`;
    }
    if (match.fills.length > MATCH_FILLS_MAX) {
      return `match ${match.matchId} has more counterparties than a proof's ${MATCH_FILLS_MAX} fill slots`;
    }
  }
  return null;
}

function queuedLegs(lane: Lane): number {
  return lane.queued.reduce((sum, group) => sum + group.legs.length, 0);
}

/**
 * Adds matches `from` to `to` (clamped to what there is) of a match event or a batch's record of
 * matches to their auction batch's joining (market:batch).
 */
function joinMatches(
  batches: Map<string, Joining<SettlingMatch>>,
  event: MatchEvent | MatchesEvent,
  from: number,
  to: number,
  seenSlot: bigint,
): void {
  const { marketId, batch } = event.type === 'match' ? event : event.matches;
  const id = `${marketId}:${batch}`;
  let into = batches.get(id);
  if (into === undefined) {
    into = newJoining<SettlingMatch>();
    batches.set(id, into);
  }
  if (event.type === 'match') {
    join(into, fromMatchEvent(event, seenSlot));
    return;
  }
  const end = Math.min(to, event.matches.count);
  for (let k = from; k < end; k += 1) join(into, fromMatchEvent(event.matches.event(k), seenSlot));
}

/** The failure reason of a chain refusal at lock time (docs/settlement.md section 3). */
function reasonOf(refusal: string): SettlementFailureReason {
  const known = (SETTLEMENT_FAILURE_REASONS as readonly string[]).includes(refusal);
  return known ? (refusal as SettlementFailureReason) : 'chain_rejected';
}
