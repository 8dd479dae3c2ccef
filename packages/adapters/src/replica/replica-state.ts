import type { Command, CoreConfig, CoreEvent } from '@venue/core';
import { VenueCore } from '@venue/core';
import type { PlaceOrder } from '@venue/protocol';
import type { JournalRecord } from '../journal/journal-record.ts';
import {
  composeSnapshot,
  loadCompanions,
  parseSnapshot,
  type StateCompanion,
} from '../venue/state-companion.ts';
import { createCompanion } from './companion-registry.ts';

/** The core's configuration without its hash function, which cannot cross to another thread. */
export type CoreSettings = Omit<CoreConfig, 'noteCommitment'>;

export function coreSettingsOf(config: CoreConfig): CoreSettings {
  const { noteCommitment: _hash, ...settings } = config;
  return settings;
}

/**
 * The venue's state as the replica keeps it: its own core and companions, built from a snapshot text
 * and then from journaled commands, exactly as recovery builds them (engine-boot.ts), so its
 * snapshot text at record N is the one the sequencer would have taken at N.
 *
 * Only commands the sequencer's core accepted reach the journal, so every place (and modify
 * replacement) here already passed the note-commitment check once, with the commitment it carries.
 * The replica's core is therefore given each command's claimed commitments in place of Poseidon (85 µs
 * a place): the same answer, by construction. Claims are keyed by owner commitment and inner hash and
 * live only while their own command applies; the core asks with the value it derives from the same
 * state, so the value cannot differ from the sequencer's without the whole state differing. A question
 * the command did not claim an answer for means the replica has diverged: it throws, and the replica
 * is dropped (snapshot-replica.ts).
 */
export class ReplicaState {
  readonly #core: VenueCore;
  readonly #companions: readonly StateCompanion[];
  readonly #claims = new Map<string, string>();

  constructor(settings: CoreSettings, companionNames: readonly string[], seed: string | null) {
    const config: CoreConfig = {
      ...settings,
      noteCommitment: (owner, inner) => this.#claimed(owner, inner),
    };
    this.#companions = companionNames.map(createCompanion);
    if (seed === null) {
      this.#core = new VenueCore(config);
      return;
    }
    const parsed = parseSnapshot(seed);
    this.#core = VenueCore.restore(config, parsed.core);
    loadCompanions(this.#companions, parsed.parts);
  }

  get core(): VenueCore {
    return this.#core;
  }

  /** Applies one journaled record; a refusal here is a divergence and throws. */
  apply(record: JournalRecord): CoreEvent[] {
    const { command } = record;
    for (const order of ordersOf(command)) {
      this.#claims.set(claimKey(order.owner_commitment, order.note_inner_hash), order.note_commitment);
    }
    let events: CoreEvent[];
    try {
      events = this.#core.apply(command);
    } finally {
      this.#claims.clear();
    }
    for (const companion of this.#companions) companion.follow(record, events);
    return events;
  }

  /** The snapshot text the sequencer's step would have composed at this point. */
  snapshot(): string {
    return composeSnapshot(this.#core.snapshot(), this.#companions);
  }

  #claimed(owner: string, inner: string): string {
    const claimed = this.#claims.get(claimKey(owner, inner));
    if (claimed === undefined) {
      const error = new Error(
        'the replica was asked for a note commitment its command did not carry: its state has diverged from the sequencer',
      );
      error.name = 'ReplicaDivergenceError';
      throw error;
    }
    return claimed;
  }
}

function ordersOf(command: Command): readonly PlaceOrder[] {
  if (command.type === 'place') return [command.order];
  if (command.type === 'modify') return [command.request.replacement];
  return [];
}

function claimKey(owner: string, inner: string): string {
  return `${owner}/${inner}`;
}
