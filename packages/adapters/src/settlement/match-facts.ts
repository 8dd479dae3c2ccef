import { type CoreEvent, type MatchEvent, type MatchFill, matchLists } from '@venue/core';
import { assert } from '@venue/protocol';
import type { JournalRecord } from '../journal/journal-record.ts';
import type { StateCompanion } from '../venue/state-companion.ts';

/**
 * What a match event says that the core's pending-match view does not keep: the batch's clearing
 * price, the counterparties' match ids and the fill against each. The pipeline needs the price for
 * the owner's fill memo, the counterparts to pair legs and the fills for the settlement proofs. Live, it reads both from the match event. After a restart, the
 * matches still pending come back from the core alone, so without these facts their owners would get
 * no memo. This companion keeps the facts of every pending match until its outcome is applied.
 */
export interface MatchFact {
  readonly clearingPrice: bigint;
  readonly counterpartyMatchIds: readonly bigint[];
  /**
   * One fill per counterparty, in the order of `counterpartyMatchIds`. Undefined for a fact loaded
   * from a snapshot written before match events carried fills.
   */
  readonly fills?: readonly MatchFill[];
}

/** A fill in a snapshot: [counterparty match id, base quantity, quote amount], decimal strings. */
type StoredFill = readonly [string, string, string];

/**
 * Stored in a snapshot as [market id, match id, price, counterparts, fills], decimal strings for
 * bigints. Snapshots written before fills were kept end after the counterparts.
 */
type StoredFact =
  | readonly [string, string, string, readonly string[]]
  | readonly [string, string, string, readonly string[], readonly StoredFill[]];

const keyOf = (marketId: string, matchId: bigint) => `${marketId}/${matchId}`;

/** A fact as kept: the match event itself while live (its lists read on demand), or as loaded. */
type Kept = MatchEvent | (MatchFact & { readonly marketId: string; readonly matchId: bigint });

/** The fact of a kept entry: a match event's lists are read from its batch's pairing only here. */
function factOf(kept: Kept): MatchFact & { readonly marketId: string; readonly matchId: bigint } {
  if (!('pairing' in kept)) return kept;
  return {
    marketId: kept.marketId,
    matchId: kept.matchId,
    clearingPrice: kept.clearingPrice,
    ...matchLists(kept),
  };
}

export class MatchFacts implements StateCompanion {
  readonly name = 'match-facts';
  /**
   * Live matches keep their event (no copy in the auction's turn: the facts of 2,048 matches cost
   * about a millisecond to build there), loaded ones their stored fact.
   */
  readonly #facts = new Map<string, Kept>();

  get size(): number {
    return this.#facts.size;
  }

  get(marketId: string, matchId: bigint): MatchFact | undefined {
    const kept = this.#facts.get(keyOf(marketId, matchId));
    return kept === undefined ? undefined : factOf(kept);
  }

  follow({ command }: JournalRecord, events: readonly CoreEvent[]): void {
    for (const event of events) {
      if (event.type !== 'match') continue;
      this.#facts.set(keyOf(event.marketId, event.matchId), event);
    }
    // An outcome resolves the match for good (the core asserts it is applied once).
    if (command.type === 'match_settled' || command.type === 'match_failed') {
      this.#facts.delete(keyOf(command.marketId, command.matchId));
    }
  }

  save(): StoredFact[] {
    return [...this.#facts.values()].map((kept): StoredFact => {
      const f = factOf(kept);
      const head = [
        f.marketId,
        f.matchId.toString(),
        f.clearingPrice.toString(),
        f.counterpartyMatchIds.map(String),
      ] as const;
      if (f.fills === undefined) return head;
      return [
        ...head,
        f.fills.map((fill) => [
          fill.counterpartyMatchId.toString(),
          fill.baseQuantity.toString(),
          fill.quoteAmount.toString(),
        ]),
      ];
    });
  }

  load(part: unknown): void {
    assert(Array.isArray(part), 'the match-facts part of a snapshot is a list');
    for (const [marketId, matchId, price, counterparts, fills] of part as StoredFact[]) {
      const fact = {
        marketId,
        matchId: BigInt(matchId),
        clearingPrice: BigInt(price),
        counterpartyMatchIds: counterparts.map(BigInt),
      };
      this.#facts.set(
        keyOf(marketId, fact.matchId),
        fills === undefined
          ? fact
          : {
              ...fact,
              fills: fills.map(([counterpartyMatchId, baseQuantity, quoteAmount]) => ({
                counterpartyMatchId: BigInt(counterpartyMatchId),
                baseQuantity: BigInt(baseQuantity),
                quoteAmount: BigInt(quoteAmount),
              })),
            },
      );
    }
  }
}
