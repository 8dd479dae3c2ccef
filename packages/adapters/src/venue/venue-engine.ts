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
import { instrumentOf, type MarketListing } from './market-listing.ts';

/** A command as callers build it: the sequencer adds the slot. */
export type UnstampedCommand = Command extends infer C
  ? C extends { readonly slot: bigint }
    ? Omit<C, 'slot'>
    : C
  : never;

/** Receives every event the core emits, in order, after the command that caused it was applied. */
export type EventListener = (events: readonly CoreEvent[]) => void;

/**
 * The sequencer: the only code that calls the core. It stamps each command with the current chain
 * slot, catching the core up with `tick` commands first so that expiry and batch clearing happen
 * at the slot they belong to, applies it, and hands the events to listeners (the stream, the
 * settlement pipeline). One thread, one command at a time: a modify's cancel and its replacement
 * are one command, so no batch can clear between them (spec 4.1 rule 2).
 *
 * The journal (issue 9) will sit between stamping and applying; commands are already plain data
 * for that reason.
 */
export class VenueEngine {
  readonly #core: VenueCore;
  readonly #clock: VenueClock;
  readonly #listings = new Map<string, MarketListing>();
  readonly #listeners: EventListener[] = [];

  constructor(config: CoreConfig, clock: VenueClock, sessionId: string) {
    this.#core = new VenueCore(config);
    this.#clock = clock;
    this.#core.apply({ type: 'boot', sessionId, slot: clock.slot() });
  }

  get core(): VenueCore {
    return this.#core;
  }

  onEvents(listener: EventListener): void {
    this.#listeners.push(listener);
  }

  /** Lists a market (operator action at start-up). */
  addMarket(listing: MarketListing): void {
    this.#listings.set(listing.config.symbol, listing);
    this.submit({ type: 'add_market', market: listing.config });
  }

  /**
   * Stamps one command with the current slot and applies it. Throws the core's VenueError when an
   * intake rule refuses it (nothing changed). Callers never choose the slot: the clock may cross a
   * slot boundary between building a command and applying it.
   */
  submit(command: UnstampedCommand): CoreEvent[] {
    this.catchUp();
    const stamped = (
      command.type === 'add_market' ? command : { ...command, slot: this.#core.slot }
    ) as Command;
    const events = this.#core.apply(stamped);
    if (events.length > 0) for (const listener of this.#listeners) listener(events);
    return events;
  }

  /** Applies `tick` until the core is at the clock's slot: expiries and due batches run. */
  catchUp(): void {
    const slot = this.#clock.slot();
    if (slot <= this.#core.slot) return;
    const events = this.#core.apply({ type: 'tick', slot });
    if (events.length > 0) for (const listener of this.#listeners) listener(events);
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

/** The reply a request's command produced; every accepted intake command produces exactly one. */
export function replyOf<T extends ReplyEvent['type']>(
  events: readonly CoreEvent[],
  type: T,
): Extract<ReplyEvent, { type: T }> {
  const reply = events.find((event): event is Extract<ReplyEvent, { type: T }> => event.type === type);
  assert(reply !== undefined, `the core accepted a command without a ${type} reply`);
  return reply;
}
