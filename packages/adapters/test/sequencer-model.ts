import { type CoreEvent, VenueCore } from '@venue/core';
import { isVenueError } from '@venue/protocol';
import { TEST_CORE_CONFIG } from '@venue/testing';
import type { JournalRecord } from '../src/journal/index.ts';
import {
  composeSnapshot,
  loadCompanions,
  parseSnapshot,
  type StateCompanion,
} from '../src/venue/state-companion.ts';

/**
 * The sequencer's side in the journal tests: a core and its companions, applying records, taking
 * snapshots and restoring them the way the engine and recovery do.
 */
export class SequencerModel {
  core = new VenueCore(TEST_CORE_CONFIG);

  constructor(readonly companions: readonly StateCompanion[]) {}

  restore(text: string): void {
    const parsed = parseSnapshot(text);
    this.core = VenueCore.restore(TEST_CORE_CONFIG, parsed.core);
    loadCompanions(this.companions, parsed.parts);
  }

  /** Applies like the sequencer: a refusal changes nothing and is not journaled (false). */
  apply(record: JournalRecord): boolean {
    let events: CoreEvent[];
    try {
      events = this.core.apply(record.command);
    } catch (error) {
      if (isVenueError(error)) return false;
      throw error;
    }
    for (const companion of this.companions) companion.follow(record, events);
    return true;
  }

  snapshot(): string {
    return composeSnapshot(this.core.snapshot(), this.companions);
  }
}
