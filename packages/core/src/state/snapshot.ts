import { assert } from '@venue/protocol';
import type { VenueState } from './venue-state.ts';

/**
 * Snapshot encoding of the core state: JSON where bigints, Maps and Sets are tagged so that
 * restoring gives back the same structure in the same iteration order. Two equal states give
 * byte-identical snapshots, which is what stateHash() compares. (The durability issue seals and
 * stores it; here it is only the bytes.)
 */

const FORMAT_VERSION = 1;

export function snapshotState(state: VenueState): string {
  return JSON.stringify({ format: FORMAT_VERSION, state }, (_key, value: unknown) => {
    if (typeof value === 'bigint') return { $big: value.toString() };
    if (value instanceof Map) return { $map: [...value.entries()] };
    if (value instanceof Set) return { $set: [...value.values()] };
    return value;
  });
}

export function restoreState(text: string): VenueState {
  const parsed = JSON.parse(text, (_key, value: unknown) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const tagged = value as Record<string, unknown>;
    if (typeof tagged['$big'] === 'string') return BigInt(tagged['$big']);
    if (Array.isArray(tagged['$map'])) return new Map(tagged['$map'] as [unknown, unknown][]);
    if (Array.isArray(tagged['$set'])) return new Set(tagged['$set'] as unknown[]);
    return value;
  }) as { format: number; state: VenueState };
  assert(parsed.format === FORMAT_VERSION, `snapshot format ${parsed.format} is not ${FORMAT_VERSION}`);
  return parsed.state;
}
