import { CONSUMED_NOTES_PER_RECORD_MAX, CONSUMED_WATCH_NOTES_PER_BEAT_MAX } from '../config/limits.ts';
import type { VenueEngine } from '../venue/venue-engine.ts';
import type { NoteUseTags } from './consumed-notes.ts';
import type { NoteOpenings } from './note-openings.ts';
import type { SettlementChain } from './settlement-chain.ts';

/**
 * spec 3.2: an order resting on a note the chain has consumed (withdrawn or merged by its owner)
 * can never settle; matched, it would only drag its counterparties into a failed settlement. This
 * watch finds such orders and records `notes_consumed`, which cancels them (cancel reason
 * note_consumed). Orders pending settlement are the core's to leave alone: their settlement decides.
 *
 * Two ways in. An in-process chain tells each withdraw and merge as it lands (`consumed`), so the
 * order is cancelled in that slot, before the next batch. On every beat (`check`) the watch also
 * looks up the notes of resting orders, at most CONSUMED_WATCH_NOTES_PER_BEAT_MAX per beat in turns
 * over the book: that is how a remote chain is followed (the beat asks the view for the tags, the
 * next read answers them, and the same notes are judged on the beat after), and it catches an order
 * whose note was consumed while the order was on its way through intake.
 *
 * Only the note backing the order now counts: after a partial fill that is the change note (whose
 * opening the pipeline derived), not the note the settlement consumed. A note without a known
 * opening is skipped (its tag cannot be derived). A consume record later dropped by a reorg does not
 * bring the order back: a cancel is final, and the owner may place again.
 */
export class ConsumedNoteWatch {
  readonly #engine: VenueEngine;
  readonly #chain: Pick<SettlementChain, 'sees' | 'consumedSlot'>;
  readonly #openings: NoteOpenings;
  readonly #tags: NoteUseTags;
  /** This turn's resting notes, by commitment; `#next` is the first not looked up yet. */
  #turn: readonly string[] = [];
  #next = 0;

  constructor(
    engine: VenueEngine,
    chain: Pick<SettlementChain, 'sees' | 'consumedSlot'>,
    openings: NoteOpenings,
    tags: NoteUseTags,
  ) {
    this.#engine = engine;
    this.#chain = chain;
    this.#openings = openings;
    this.#tags = tags;
  }

  /** One beat: looks up the next resting notes on the chain and cancels the orders of consumed ones. */
  check(): void {
    if (this.#next >= this.#turn.length) {
      this.#turn = this.#engine.core.restingNoteCommitments();
      this.#next = 0;
    }
    const tagged = this.#tagged(this.#turn.slice(this.#next, this.#next + CONSUMED_WATCH_NOTES_PER_BEAT_MAX));
    // A view that has not read these tags has now been asked for them: the next beat judges them.
    if (this.#chain.sees?.({ tags: tagged.map(([, tag]) => tag) }) === false) return;
    this.#next += CONSUMED_WATCH_NOTES_PER_BEAT_MAX;
    this.#cancel(tagged.filter(([, tag]) => this.#chain.consumedSlot(tag) !== undefined));
  }

  /** The chain consumed these notes just now (an in-process chain's withdraw or merge). */
  consumed(noteUseTags: readonly string[]): void {
    const wanted = new Set(noteUseTags);
    const resting = this.#tagged(this.#engine.core.restingNoteCommitments());
    this.#cancel(resting.filter(([, tag]) => wanted.has(tag)));
  }

  /** Each commitment with its note-use tag, leaving out notes whose opening is not known. */
  #tagged(commitments: readonly string[]): [commitment: string, tag: string][] {
    const tagged: [string, string][] = [];
    for (const commitment of commitments) {
      const opening = this.#openings.get(commitment);
      if (opening === undefined) continue;
      tagged.push([commitment, this.#tags.of(commitment, opening.ownerCommitment, opening.innerHash)]);
    }
    return tagged;
  }

  #cancel(consumed: readonly (readonly [string, string])[]): void {
    for (let from = 0; from < consumed.length; from += CONSUMED_NOTES_PER_RECORD_MAX) {
      const noteCommitments = consumed.slice(from, from + CONSUMED_NOTES_PER_RECORD_MAX).map(([c]) => c);
      this.#engine.record({ type: 'notes_consumed', noteCommitments });
    }
  }
}
