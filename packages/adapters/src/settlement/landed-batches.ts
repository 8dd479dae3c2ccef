import type { CoreEvent } from '@venue/core';
import { assert } from '@venue/protocol';
import type { JournalRecord } from '../journal/journal-record.ts';
import type { StateCompanion } from '../venue/state-companion.ts';

/** The batch number of a market that has settled nothing yet (the chain numbers batches from 0). */
export const NO_BATCH = -1n;

/** Stored in a snapshot as [market id, batch number], the number as a decimal string. */
type StoredLanded = readonly [string, string];

/**
 * How far the chain's settlements reached, as the journal knows it: per market, the highest chain
 * batch number whose landing the journal recorded (the `landedBatchSeq` annotation of `match_settled`,
 * journal/journal-record.ts). The chain counts its
 * landed batches too and no disk can rewind that count, so comparing the two at boot tells a state
 * directory that is older than the chain (put back from a copy, or wiped) from a current one
 * (chain-state-check.ts). Kept like the other companions: in each snapshot, then from the commands.
 */
export class LandedBatches implements StateCompanion {
  readonly name = 'landed-batches';
  readonly #last = new Map<string, bigint>();

  /** The highest batch number recorded for the market, or NO_BATCH. */
  last(marketId: string): bigint {
    return this.#last.get(marketId) ?? NO_BATCH;
  }

  follow({ command, annotations }: JournalRecord, _events: readonly CoreEvent[]): void {
    const reached = annotations.landedBatchSeq;
    if (command.type !== 'match_settled' || reached === undefined) return;
    // Outcomes of one batch arrive one per match, and a recovered match may name an older batch.
    if (reached > this.last(command.marketId)) this.#last.set(command.marketId, reached);
  }

  save(): StoredLanded[] {
    return [...this.#last].map(([marketId, seq]) => [marketId, seq.toString()]);
  }

  load(part: unknown): void {
    assert(Array.isArray(part), 'the landed-batches part of a snapshot is a list');
    for (const entry of part as unknown[]) {
      assert(
        Array.isArray(entry) &&
          entry.length === 2 &&
          typeof entry[0] === 'string' &&
          typeof entry[1] === 'string' &&
          /^\d{1,20}$/.test(entry[1]),
        'a landed-batches entry is [market id, decimal batch number]',
      );
      this.#last.set(entry[0] as string, BigInt(entry[1] as string));
    }
  }
}
