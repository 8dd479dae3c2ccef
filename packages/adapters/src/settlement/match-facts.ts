import type { CoreEvent } from '@venue/core';
import { assert } from '@venue/protocol';
import type { JournalRecord } from '../journal/journal-record.ts';
import type { StateCompanion } from '../venue/state-companion.ts';

/**
 * What a match event says that the core's pending-match view does not keep: the batch's clearing
 * price and the counterparties' match ids. The pipeline needs the price for the owner's fill memo
 * and the counterparts to pair legs. Live, it reads both from the match event. After a restart, the
 * matches still pending come back from the core alone, so without these facts their owners would get
 * no memo. This companion keeps the facts of every pending match until its outcome is applied.
 */
export interface MatchFact {
  readonly clearingPrice: bigint;
  readonly counterpartyMatchIds: readonly bigint[];
  /** The fill against each counterparty; absent in a snapshot older than them. */
  readonly fills?: readonly MatchFillFact[];
}

/** One fill of the match against one counterparty (core MatchFill). */
export interface MatchFillFact {
  readonly counterpartyMatchId: bigint;
  readonly baseQuantity: bigint;
  readonly quoteAmount: bigint;
}

/** Stored in a snapshot as [market id, match id, price, counterparts], decimal strings for bigints. */
type StoredFact = readonly [string, string, string, readonly string[]];

const keyOf = (marketId: string, matchId: bigint) => `${marketId}/${matchId}`;

export class MatchFacts implements StateCompanion {
  readonly name = 'match-facts';
  readonly #facts = new Map<string, MatchFact & { readonly marketId: string; readonly matchId: bigint }>();

  get size(): number {
    return this.#facts.size;
  }

  get(marketId: string, matchId: bigint): MatchFact | undefined {
    return this.#facts.get(keyOf(marketId, matchId));
  }

  follow({ command }: JournalRecord, events: readonly CoreEvent[]): void {
    for (const event of events) {
      if (event.type !== 'match') continue;
      this.#facts.set(keyOf(event.marketId, event.matchId), {
        marketId: event.marketId,
        matchId: event.matchId,
        clearingPrice: event.clearingPrice,
        counterpartyMatchIds: event.counterpartyMatchIds,
        fills: event.fills,
      });
    }
    // An outcome resolves the match for good (the core asserts it is applied once).
    if (command.type === 'match_settled' || command.type === 'match_failed') {
      this.#facts.delete(keyOf(command.marketId, command.matchId));
    }
  }

  save(): StoredFact[] {
    return [...this.#facts.values()].map((f) => [
      f.marketId,
      f.matchId.toString(),
      f.clearingPrice.toString(),
      f.counterpartyMatchIds.map(String),
    ]);
  }

  load(part: unknown): void {
    assert(Array.isArray(part), 'the match-facts part of a snapshot is a list');
    for (const [marketId, matchId, price, counterparts] of part as StoredFact[]) {
      this.#facts.set(keyOf(marketId, BigInt(matchId)), {
        marketId,
        matchId: BigInt(matchId),
        clearingPrice: BigInt(price),
        counterpartyMatchIds: counterparts.map(BigInt),
      });
    }
  }
}
