import type { VENUE_PAUSE_REASONS } from '@venue/protocol';
import type { VenueEngine } from './venue-engine.ts';

export type VenuePauseReason = (typeof VENUE_PAUSE_REASONS)[number];

/**
 * The venue-wide trading gate (spec 1 item 7): a set of reasons, any one of which closes new
 * trading on every market. Every change goes to the core as a `venue_gate` command, so order
 * intake re-checks it at the moment it sequences an order, and a replay sees the same gate.
 */
export class TradingGates {
  readonly #engine: VenueEngine;
  readonly #reasons = new Set<VenuePauseReason>();

  constructor(engine: VenueEngine) {
    this.#engine = engine;
  }

  set(reason: VenuePauseReason, paused: boolean): void {
    const had = this.#reasons.has(reason);
    if (had === paused) return;
    if (paused) this.#reasons.add(reason);
    else this.#reasons.delete(reason);
    this.#engine.record({ type: 'venue_gate', pauseReasons: this.reasons() });
  }

  /**
   * Journals the gate as this boot holds it (open until a watcher closes it). A recovered core still
   * carries the reasons of the boot that stopped: a drain above all, which belongs to that boot and
   * would otherwise refuse every order of this one. The watchers (governance, attestation) close the
   * gate again at their first check if their reason still holds.
   */
  assertAtBoot(): void {
    this.#engine.record({ type: 'venue_gate', pauseReasons: this.reasons() });
  }

  reasons(): VenuePauseReason[] {
    return [...this.#reasons].sort();
  }

  get paused(): boolean {
    return this.#reasons.size > 0;
  }
}
