import type { CoreEvent } from '@venue/core';
import { assert } from '@venue/protocol';
import type { JournalRecord } from '../journal/journal-record.ts';

/**
 * Adapter state that must outlive a restart but is not the core's (the core's state stays small and
 * its hash stable). The note openings settlement needs are the example: the enclave learns them when
 * a proof verifies, and a resting order placed before a restart still has to settle after it.
 *
 * A companion is kept the way the core is: its part is stored in each snapshot beside the core's,
 * taken in the same sequencer step, and after the snapshot it is rebuilt from the journaled records.
 * `follow` sees every record the core applies (its command, and the annotations the adapters put
 * beside it, journal/journal-record.ts) with the events it produced, in journal order: live in the
 * sequencer's step, and again during recovery and on the snapshot replica. So it is exactly as
 * durable as the records it derives from, with no file or fsync of its own, and live and recovered
 * state are built the same way: a fact a companion keeps is written by its `follow` alone.
 */
export interface StateCompanion {
  /** Names the part inside a snapshot; unique among a venue's companions. */
  readonly name: string;
  /** The part to store; plain JSON data. Runs on the sequencer, in the snapshot's step. */
  save(): unknown;
  /** Restores what `save` returned (before any replay). */
  load(part: unknown): void;
  /** Follows one applied record and its events (live, and during recovery's replay). */
  follow(record: JournalRecord, events: readonly CoreEvent[]): void;
}

/**
 * Snapshot text with companions: a header line, the length of the core's snapshot in UTF-16 units, the core's
 * snapshot itself, then one JSON object of the companions' parts. The core's text is carried as it
 * is (no re-escaping of a large string). A snapshot without the header is a core snapshot alone,
 * as a venue without companions writes it.
 */
const ENVELOPE_HEADER = 'venue-snapshot/2\n';

export interface SnapshotParts {
  readonly core: string;
  readonly parts: Readonly<Record<string, unknown>>;
}

export function composeSnapshot(core: string, companions: readonly StateCompanion[]): string {
  if (companions.length === 0) return core;
  const parts: Record<string, unknown> = {};
  for (const companion of companions) parts[companion.name] = companion.save();
  return `${ENVELOPE_HEADER}${core.length}\n${core}${JSON.stringify(parts)}`;
}

export function parseSnapshot(text: string): SnapshotParts {
  if (!text.startsWith(ENVELOPE_HEADER)) return { core: text, parts: {} };
  const lengthEnd = text.indexOf('\n', ENVELOPE_HEADER.length);
  assert(lengthEnd > 0, 'a venue snapshot names its core length on its second line');
  const coreLength = Number(text.slice(ENVELOPE_HEADER.length, lengthEnd));
  const coreStart = lengthEnd + 1;
  assert(
    Number.isSafeInteger(coreLength) && coreLength >= 0 && coreStart + coreLength <= text.length,
    'a venue snapshot names a core length beyond its end',
  );
  const parts = JSON.parse(text.slice(coreStart + coreLength)) as unknown;
  assert(typeof parts === 'object' && parts !== null, 'a venue snapshot ends with an object of parts');
  return { core: text.slice(coreStart, coreStart + coreLength), parts: parts as Record<string, unknown> };
}

/** Restores each companion from its part (a companion absent from the snapshot starts empty). */
export function loadCompanions(companions: readonly StateCompanion[], parts: SnapshotParts['parts']): void {
  for (const companion of companions) {
    const part = parts[companion.name];
    if (part !== undefined) companion.load(part);
  }
}
