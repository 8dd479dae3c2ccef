import type { Fills } from '../auction/types.ts';
import { bigintOfUnits, SAFE_UNITS } from '../auction/units.ts';
import type { BatchMatchesRecord, BatchPairing, MatchEvent } from '../events.ts';
import type { NoteRef, OrderRow, Reservations } from '../state/venue-state.ts';

/**
 * One batch's matches as one record (decisions D148): what each filled order's match event said,
 * kept as the batch's shared facts plus, per match k (0 <= k < count, match id firstMatchId + k),
 * the order's row and its ref among the participants. The batch fills those two arrays in its fills
 * pass and builds nothing else per filled order: totals are summed from the batch's fills, and
 * events built when someone reads them. The note is the row's while the match is pending (a pending
 * order's note cannot change); the row tells the record its note when the match stops pending,
 * before a settlement can give it a change note (`released`).
 *
 * The record is also the filled orders' reservation (row.pending names it and row.pendingAt the
 * order's k), as the match event was before it (D120).
 */
export class BatchMatches implements BatchMatchesRecord, Reservations {
  readonly marketId: string;
  readonly batch: bigint;
  readonly slot: bigint;
  readonly clearingPrice: bigint;
  readonly lockExpirySlot: bigint;
  readonly firstMatchId: bigint;
  readonly pairing: BatchPairing;
  /** k -> the order (rows keep their identity fields for life; see `notes` for what changes). */
  readonly orders: OrderRow[];
  /** k -> the order's note, once its match stopped pending (until then, the row's). */
  readonly #notes: (NoteRef | undefined)[] = [];
  /** k -> the order's ref among the batch's participants (its range of the pairing's fills). */
  readonly refs: Int32Array;
  readonly #firstKey: number;

  constructor(
    facts: {
      readonly marketId: string;
      readonly batch: bigint;
      readonly slot: bigint;
      readonly clearingPrice: bigint;
      readonly lockExpirySlot: bigint;
    },
    pairing: BatchPairing,
    count: number,
  ) {
    this.marketId = facts.marketId;
    this.batch = facts.batch;
    this.slot = facts.slot;
    this.clearingPrice = facts.clearingPrice;
    this.lockExpirySlot = facts.lockExpirySlot;
    this.firstMatchId = pairing.firstMatchId;
    this.#firstKey = Number(pairing.firstMatchId);
    this.pairing = pairing;
    this.orders = new Array(count);
    this.refs = new Int32Array(count);
  }

  get count(): number {
    return this.refs.length;
  }

  matchId(k: number): bigint {
    return this.firstMatchId + BigInt(k);
  }

  matchKey(k: number): number {
    return this.#firstKey + k;
  }

  accountId(k: number): string {
    return (this.orders[k] as OrderRow).accountId;
  }

  baseQuantity(k: number): bigint {
    return orderTotals(this.pairing, this.refs[k] as number).base;
  }

  quoteAmount(k: number): bigint {
    return orderTotals(this.pairing, this.refs[k] as number).quote;
  }

  released(k: number, note: NoteRef): void {
    this.#notes[k] = note;
  }

  event(k: number): MatchEvent {
    const row = this.orders[k] as OrderRow;
    const note = this.#notes[k] ?? row.note;
    const ref = this.refs[k] as number;
    const { base, quote } = orderTotals(this.pairing, ref);
    return {
      type: 'match',
      marketId: this.marketId,
      matchId: this.matchId(k),
      batch: this.batch,
      slot: this.slot,
      orderId: row.orderId,
      accountId: row.accountId,
      side: row.side,
      clearingPrice: this.clearingPrice,
      baseQuantity: base,
      quoteAmount: quote,
      noteCommitment: note.commitment,
      noteValue: note.value,
      treeId: note.treeId,
      merkleRoot: note.merkleRoot,
      viewingPubkey: row.viewingPubkey,
      lockExpirySlot: this.lockExpirySlot,
      pairing: this.pairing,
      pairingRef: ref,
    };
  }
}

/** What an order's fills (its ref's range of the pairing) move together. */
interface Totals {
  readonly base: bigint;
  readonly quote: bigint;
}

/**
 * Summed as numbers while exact (each amount and every partial sum below 2^53; a sum that is not
 * rounds to 2^53 or more, and NaN marks an amount kept as a bigint), else again as bigints.
 */
function orderTotals(pairing: BatchPairing, ref: number): Totals {
  const { fills, start, fillAt } = pairing;
  const from = start[ref] as number;
  const to = start[ref + 1] as number;
  let base = 0;
  let quote = 0;
  for (let at = from; at < to; at += 1) {
    const index = fillAt[at] as number;
    base += fills.quantityUnits(index);
    quote += fills.quoteUnits(index);
  }
  if (base <= SAFE_UNITS && quote <= SAFE_UNITS)
    return { base: bigintOfUnits(base), quote: bigintOfUnits(quote) };
  return wideTotals(fills, fillAt, from, to);
}

function wideTotals(fills: Fills, fillAt: Int32Array, from: number, to: number): Totals {
  let base = 0n;
  let quote = 0n;
  for (let at = from; at < to; at += 1) {
    const index = fillAt[at] as number;
    base += fills.quantity(index);
    quote += fills.quoteAmount(index);
  }
  return { base, quote };
}
