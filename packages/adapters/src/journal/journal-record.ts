import type { Command } from '@venue/core';

/**
 * What the journal stores per sequence number: the core's command, and beside it the facts the
 * adapters derived when they built it. The core applies only `command` and never sees the rest, so
 * its commands stay its own; the state companions (venue/state-companion.ts) read both, live in
 * the sequencer's step and again on replay, so an annotation is exactly as durable as its command.
 */
export interface JournalRecord {
  readonly command: Command;
  readonly annotations: Annotations;
}

/**
 * Every kind of adapter annotation, one optional field each. A new kind is a new field here, in
 * ANNOTATIONS_SHAPE (record-shapes.ts) and in RECORD_VERSION: the codec refuses a field it does not
 * declare, so an older build never half-reads a newer record.
 */
export interface Annotations {
  /**
   * On `match_settled`: the opening of the change note the pipeline derived, so the remainder
   * resting on it can settle after a restart (settlement/note-openings.ts).
   */
  readonly changeOpening?: ChangeOpening;
  /**
   * On `match_settled`: the number of a final landed chain batch at least as new as the one that
   * settled the match: how far the chain's settlements reached (settlement/landed-batches.ts).
   */
  readonly landedBatchSeq?: bigint;
}

/** The opening of a change note: what settlement needs to spend it, never stored in clear. */
export interface ChangeOpening {
  readonly commitment: string;
  readonly ownerCommitment: string;
  readonly innerHash: string;
}

export const NO_ANNOTATIONS: Annotations = Object.freeze({});

/** The command types each annotation may ride beside; anything else is a programmer error. */
export const ANNOTATED_COMMANDS: { readonly [K in keyof Required<Annotations>]: readonly Command['type'][] } =
  {
    changeOpening: ['match_settled'],
    landedBatchSeq: ['match_settled'],
  };

/** A record of a command the adapters add nothing to. */
export function plainRecord(command: Command): JournalRecord {
  return { command, annotations: NO_ANNOTATIONS };
}
