import { assert } from '@venue/protocol';
import type { NotesConsumedCommand } from '../commands.ts';
import type { CoreConfig } from '../config.ts';
import type { CoreEvent } from '../events.ts';
import { type Ending, finish } from '../state/order-index.ts';
import type { VenueState } from '../state/venue-state.ts';

/** Most notes one notes_consumed command names (the chain watch sends at most this many per beat). */
export const NOTES_CONSUMED_PER_COMMAND_MAX = 4096;

const NOTE_CONSUMED: Ending = { kind: 'cancelled', cancelReason: 'note_consumed' };

/**
 * spec 3.2: a note is spendable only while the chain has no consume record for it. An order resting
 * on a consumed note would only drag its counterparties into a failed settlement, so it is cancelled
 * at once, as the venue cancels on a disconnect. An order pending settlement keeps its match: its
 * settlement's outcome ends it (a settlement that consumed the note is the order's own fill). A
 * commitment that backs no resting order (already ended, or never booked) changes nothing.
 */
export function applyNotesConsumed(
  state: VenueState,
  config: CoreConfig,
  command: NotesConsumedCommand,
): CoreEvent[] {
  assert(
    command.noteCommitments.length <= NOTES_CONSUMED_PER_COMMAND_MAX,
    `notes_consumed names ${command.noteCommitments.length} notes, above ${NOTES_CONSUMED_PER_COMMAND_MAX}`,
  );
  const events: CoreEvent[] = [];
  for (const commitment of command.noteCommitments) {
    const holder = state.notes.get(commitment);
    if (typeof holder !== 'object' || holder.state !== 'resting') continue;
    events.push(finish(state, config, holder, NOTE_CONSUMED));
  }
  return events;
}
