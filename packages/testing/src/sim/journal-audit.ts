import { join } from 'node:path';
import { recoverJournal } from '@venue/adapters';
import {
  type Command,
  type CoreConfig,
  type CoreEvent,
  expandedEvents,
  plainMatchEvent,
  VenueCore,
} from '@venue/core';
import type { SimDisk } from './sim-disk.ts';
import { SIM_STATE_DIRECTORY } from './sim-venue.ts';

/** One journal record as a fresh core replays it: the command and the events it produced. */
export interface ReplayedRecord {
  readonly command: Command;
  readonly events: readonly CoreEvent[];
}

/**
 * The whole journal on the simulated disk, replayed from its first record into a fresh core with
 * the real recovery code (every CRC, hash link and seal checked), ignoring snapshots. It reads a
 * copy of the disk, so the audit never repairs (truncates) the live files. Needs every segment:
 * the simulated venue keeps them (pruneSegments false).
 */
export async function replayJournal(
  disk: SimDisk,
  config: CoreConfig,
  sealingKey: Uint8Array,
): Promise<{ core: VenueCore; records: ReplayedRecord[] }> {
  const core = new VenueCore(config);
  const records: ReplayedRecord[] = [];
  await recoverJournal({
    directory: join(SIM_STATE_DIRECTORY, 'journal'),
    sealingKey,
    files: disk.clone(),
    ignoreSnapshots: true,
    onCommand: (command) => {
      // Spelled out as listeners hear them (simulator #heard).
      records.push({ command, events: expandedEvents(core.apply(command)) });
    },
  });
  return { core, records };
}

/** An event as text, to compare what listeners heard with what a replay produces. */
export function eventText(event: CoreEvent): string {
  // A match event with its lists, not its batch's record (which every event of the batch shares).
  return JSON.stringify(event.type === 'match' ? plainMatchEvent(event) : event, (_key, value) =>
    typeof value === 'bigint' ? `${value}n` : value,
  );
}
