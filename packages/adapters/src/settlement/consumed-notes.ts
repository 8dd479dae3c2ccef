import type { NoteHasher } from '@venue/notes';
import { assert, VenueError } from '@venue/protocol';
import { NOTE_USE_TAGS_REMEMBERED_MAX } from '../config/limits.ts';
import type { ProofChecks } from '../venue/intake-checks.ts';
import type { SettlementChain } from './settlement-chain.ts';

/**
 * spec 3.2: a note is spendable only while the chain has no consume record for it, and the chain
 * keys those records by the note-use tag Poseidon(35, owner, inner). Intake and the consumed-note
 * watch both need the tag of a note the venue knows by commitment; deriving it is a Poseidon hash, so
 * each commitment's tag is derived once and remembered here. A tag is remembered only for a note
 * whose opening a verified proof vouched for (the proof binds commitment and tag).
 */
export class NoteUseTags {
  readonly #hasher: Pick<NoteHasher, 'noteUseTagHex'>;
  readonly #byCommitment = new Map<string, string>();
  readonly #max: number;

  constructor(hasher: Pick<NoteHasher, 'noteUseTagHex'>, max = NOTE_USE_TAGS_REMEMBERED_MAX) {
    assert(Number.isInteger(max) && max >= 1, 'NoteUseTags remembers at least one tag');
    this.#hasher = hasher;
    this.#max = max;
  }

  of(commitment: string, ownerCommitment: string, innerHash: string): string {
    const known = this.#byCommitment.get(commitment);
    if (known !== undefined) return known;
    const tag = this.#hasher.noteUseTagHex(ownerCommitment, innerHash);
    this.#byCommitment.set(commitment, tag);
    if (this.#byCommitment.size > this.#max) {
      const oldest = this.#byCommitment.keys().next().value;
      if (oldest !== undefined) this.#byCommitment.delete(oldest);
    }
    return tag;
  }
}

/**
 * Wraps the intake's proof checks: once the proof verified (so owner and inner hash open the order's
 * note), an order whose note the chain already consumed is refused with NOTE_CONSUMED (1210), place
 * and modify alike. A remote chain's view may not have read the tag yet: the order is then accepted,
 * the tag is asked for in the view's next read, and the consumed-note watch cancels the order there
 * if the note turns out consumed (docs/settlement.md, consumed notes). Waiting for the read instead
 * would add a poll to every order on a new note; the window is the one any resting order has when
 * its note is withdrawn under it.
 */
export function refusingConsumedNotes(
  inner: ProofChecks,
  chain: Pick<SettlementChain, 'sees' | 'consumedSlot'>,
  tags: NoteUseTags,
): ProofChecks {
  return {
    async check(order) {
      await inner.check(order);
      const tag = tags.of(order.note_commitment, order.owner_commitment, order.note_inner_hash);
      if (chain.sees !== undefined && !chain.sees({ tags: [tag] })) return;
      if (chain.consumedSlot(tag) !== undefined) {
        throw new VenueError(
          'NOTE_CONSUMED',
          'field `note_commitment`: the chain has consumed this note (withdrawn, merged or settled); back the order with another note',
        );
      }
    },
  };
}
