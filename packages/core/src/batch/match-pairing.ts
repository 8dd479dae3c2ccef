import type { Fill } from '../auction/types.ts';
import type { MatchEvent, MatchFill } from '../events.ts';

/**
 * A match event's lists, read from its batch's pairing record when settlement asks (decisions
 * D120): the batch itself builds no list per order. Both walk the order's range of fills in fill
 * order, so `matchFills(e)[i].counterpartyMatchId === matchCounterparties(e)[i]`.
 */

/** The counterparties' match ids, in fill order (a pair fills at most once, so none repeats). */
export function matchCounterparties(event: Pick<MatchEvent, 'pairing' | 'pairingRef'>): bigint[] {
  const { fills, start, fillAt, matchIds } = event.pairing;
  const ref = event.pairingRef;
  const from = start[ref] as number;
  const ids: bigint[] = new Array((start[ref + 1] as number) - from);
  for (let at = 0; at < ids.length; at += 1) {
    const fill = fills[fillAt[from + at] as number] as Fill;
    ids[at] = matchIds[fill.bidRef === ref ? fill.askRef : fill.bidRef] as bigint;
  }
  return ids;
}

/** The order's fills, one per counterparty, in the order of `matchCounterparties`. */
export function matchFills(event: Pick<MatchEvent, 'pairing' | 'pairingRef'>): MatchFill[] {
  const { fills, start, fillAt, matchIds } = event.pairing;
  const ref = event.pairingRef;
  const from = start[ref] as number;
  const own: MatchFill[] = new Array((start[ref + 1] as number) - from);
  for (let at = 0; at < own.length; at += 1) {
    const fill = fills[fillAt[from + at] as number] as Fill;
    own[at] = {
      counterpartyMatchId: matchIds[fill.bidRef === ref ? fill.askRef : fill.bidRef] as bigint,
      baseQuantity: fill.quantity,
      quoteAmount: fill.quoteAmount,
    };
  }
  return own;
}

/**
 * The event as plain data: its lists spelled out, without the batch's record (what a transcript,
 * an audit or a log compares; the record would repeat the whole batch in every event).
 */
export function plainMatchEvent(event: MatchEvent): PlainMatchEvent {
  const { pairing: _pairing, pairingRef: _ref, ...fields } = event;
  return { ...fields, counterpartyMatchIds: matchCounterparties(event), fills: matchFills(event) };
}

export type PlainMatchEvent = Omit<MatchEvent, 'pairing' | 'pairingRef'> & {
  readonly counterpartyMatchIds: readonly bigint[];
  readonly fills: readonly MatchFill[];
};
