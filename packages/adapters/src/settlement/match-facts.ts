import {
  type BatchMatchesRecord,
  type CoreEvent,
  type MatchEvent,
  type MatchFill,
  matchLists,
} from '@venue/core';
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

/** A batch's record of matches while some of them are unresolved: `open[k]` is 1 until k's outcome. */
interface LiveBatch {
  readonly matches: BatchMatchesRecord;
  readonly open: Uint8Array;
  openCount: number;
}

export class MatchFacts implements StateCompanion {
  readonly name = 'match-facts';
  /** Facts kept one by one: loaded from a snapshot, or from a single match event. */
  readonly #facts = new Map<string, Kept>();
  /**
   * Live batches keep their record (D148: nothing is built per match in the auction's turn), by
   * market in match id order for lookups, and all of them in arrival order for `save`.
   */
  readonly #batchesByMarket = new Map<string, LiveBatch[]>();
  readonly #batches = new Set<LiveBatch>();

  get size(): number {
    let size = this.#facts.size;
    for (const live of this.#batches) size += live.openCount;
    return size;
  }

  get(marketId: string, matchId: bigint): MatchFact | undefined {
    const kept = this.#facts.get(keyOf(marketId, matchId));
    if (kept !== undefined) return factOf(kept);
    const found = this.#find(marketId, matchId);
    return found === null ? undefined : factOf(found.live.matches.event(found.k));
  }

  follow({ command }: JournalRecord, events: readonly CoreEvent[]): void {
    for (const event of events) {
      if (event.type === 'match') this.#facts.set(keyOf(event.marketId, event.matchId), event);
      else if (event.type === 'matches' && event.matches.count > 0) this.#keepBatch(event.matches);
    }
    // An outcome resolves the match for good (the core asserts it is applied once).
    if (command.type === 'match_settled' || command.type === 'match_failed') {
      if (!this.#facts.delete(keyOf(command.marketId, command.matchId))) {
        this.#resolve(command.marketId, command.matchId);
      }
    }
  }

  #keepBatch(matches: BatchMatchesRecord): void {
    const live: LiveBatch = {
      matches,
      open: new Uint8Array(matches.count).fill(1),
      openCount: matches.count,
    };
    let list = this.#batchesByMarket.get(matches.marketId);
    if (list === undefined) {
      list = [];
      this.#batchesByMarket.set(matches.marketId, list);
    }
    // Match ids only grow within a market, so appending keeps the list in order.
    list.push(live);
    this.#batches.add(live);
  }

  /** The live batch holding an unresolved match, and its index there, or null. */
  #find(marketId: string, matchId: bigint): { live: LiveBatch; k: number } | null {
    const list = this.#batchesByMarket.get(marketId);
    if (list === undefined) return null;
    let low = 0;
    let high = list.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const live = list[middle] as LiveBatch;
      const first = live.matches.firstMatchId;
      if (matchId < first) high = middle - 1;
      else if (matchId >= first + BigInt(live.matches.count)) low = middle + 1;
      else {
        const k = Number(matchId - first);
        return live.open[k] === 1 ? { live, k } : null;
      }
    }
    return null;
  }

  #resolve(marketId: string, matchId: bigint): void {
    const found = this.#find(marketId, matchId);
    if (found === null) return;
    const { live, k } = found;
    live.open[k] = 0;
    live.openCount -= 1;
    if (live.openCount > 0) return;
    this.#batches.delete(live);
    const list = this.#batchesByMarket.get(marketId) as LiveBatch[];
    list.splice(list.indexOf(live), 1);
    if (list.length === 0) this.#batchesByMarket.delete(marketId);
  }

  /** Every unresolved fact: those kept one by one in the order they came, then the live batches'. */
  #kept(): Kept[] {
    const kept = [...this.#facts.values()];
    for (const live of this.#batches) {
      for (let k = 0; k < live.matches.count; k += 1)
        if (live.open[k] === 1) kept.push(live.matches.event(k));
    }
    return kept;
  }

  save(): StoredFact[] {
    return this.#kept().map((kept): StoredFact => {
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
