import { LandedBatches } from '../settlement/landed-batches.ts';
import { MatchFacts } from '../settlement/match-facts.ts';
import { NoteOpenings } from '../settlement/note-openings.ts';
import type { StateCompanion } from '../venue/state-companion.ts';

/**
 * State companions the snapshot replica can build on its own thread, by name. A companion object
 * cannot cross threads (it holds maps and methods), so the replica makes a fresh one of the same kind
 * and feeds it the same journaled commands; a companion that is not listed here keeps the venue on
 * inline snapshots (see replicaSupports).
 */
const FACTORIES: Readonly<Record<string, () => StateCompanion>> = {
  'note-openings': () => new NoteOpenings(),
  'match-facts': () => new MatchFacts(),
  'landed-batches': () => new LandedBatches(),
};

export function replicaSupports(companions: readonly StateCompanion[]): boolean {
  return companions.every((companion) => Object.hasOwn(FACTORIES, companion.name));
}

export function createCompanion(name: string): StateCompanion {
  const factory = FACTORIES[name];
  if (factory === undefined) {
    throw new Error(
      `the snapshot replica cannot build a state companion named ${name}; register it in replica/companion-registry.ts`,
    );
  }
  return factory();
}
