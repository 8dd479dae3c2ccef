import type { AuctionResult, Fill } from '../auction/types.ts';
import type { BatchEvent, MatchEvent, MatchFill } from '../events.ts';

/**
 * A match event's lists, read from its batch's pairing record when settlement asks (decisions
 * D120): the batch itself builds no list per order. One walk of the order's range of fills, in fill
 * order, gives both lists, so `matchFills(e)[i].counterpartyMatchId === matchCounterparties(e)[i]`.
 */

/** The order's fills, one per counterparty, in the order of `matchCounterparties`. */
export function matchFills(event: Pick<MatchEvent, 'pairing' | 'pairingRef'>): MatchFill[] {
  const { fills, start, fillAt, rank, firstMatchId } = event.pairing;
  const ref = event.pairingRef;
  const from = start[ref] as number;
  const own: MatchFill[] = new Array((start[ref + 1] as number) - from);
  for (let at = 0; at < own.length; at += 1) {
    const index = fillAt[from + at] as number;
    const bidRef = fills.bidRef(index);
    own[at] = {
      counterpartyMatchId:
        firstMatchId + BigInt(rank[bidRef === ref ? fills.askRef(index) : bidRef] as number),
      baseQuantity: fills.quantity(index),
      quoteAmount: fills.quoteAmount(index),
    };
  }
  return own;
}

/** The counterparties' match ids, in fill order (a pair fills at most once, so none repeats). */
export function matchCounterparties(event: Pick<MatchEvent, 'pairing' | 'pairingRef'>): bigint[] {
  return matchLists(event).counterpartyMatchIds;
}

/** Both lists from one walk: what a consumer that needs both (settlement, the facts) asks for. */
export function matchLists(event: Pick<MatchEvent, 'pairing' | 'pairingRef'>): {
  readonly counterpartyMatchIds: bigint[];
  readonly fills: MatchFill[];
} {
  const fills = matchFills(event);
  return { counterpartyMatchIds: fills.map((fill) => fill.counterpartyMatchId), fills };
}

/**
 * The event as plain data: its lists spelled out, without the batch's record (what a transcript,
 * an audit or a log compares; the record would repeat the whole batch in every event).
 */
export function plainMatchEvent(event: MatchEvent): PlainMatchEvent {
  const { pairing: _pairing, pairingRef: _ref, ...fields } = event;
  return { ...fields, ...matchLists(event) };
}

export type PlainMatchEvent = Omit<MatchEvent, 'pairing' | 'pairingRef'> & {
  readonly counterpartyMatchIds: readonly bigint[];
  readonly fills: readonly MatchFill[];
};

/**
 * A batch event as plain data: its fills spelled out as objects instead of columns (fill-columns.ts),
 * for what writes or compares a batch's record field by field.
 */
export function plainBatchEvent(event: BatchEvent): PlainBatchEvent {
  return { ...event, result: { ...event.result, fills: event.result.fills.toArray() } };
}

export type PlainBatchEvent = Omit<BatchEvent, 'result'> & {
  readonly result: Omit<AuctionResult, 'fills'> & { readonly fills: readonly Fill[] };
};
