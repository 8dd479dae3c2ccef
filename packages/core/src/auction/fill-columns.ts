/**
 * A batch's fills in columns (decisions D133). A deep crossing clear fills tens of thousands of
 * pairs; as objects, each fill was an object and two bigints that all outlive the tick, so every
 * young-generation collection inside the tick copied them, and each order's totals added bigints
 * again. Here the refs are Int32 columns and the amounts Float64 columns (exact below 2^53), which
 * the collector never copies, and a bigint is made only when a consumer asks for an amount.
 *
 * Amounts beyond 2^53 (tokens with a huge supply; the auction's bigint walk) are kept as bigints
 * beside the columns, whose entries for that fill read NaN, so every reader falls back to them.
 */
import { AssertionError } from '@venue/protocol';
import { grown } from '../typed-arrays.ts';
import type { Fill, Fills } from './types.ts';
import { bigintOfUnits, SAFE_UNITS } from './units.ts';

/** Fills a column set starts with; the columns double when full. */
const CAPACITY_INITIAL = 16;

const SAFE = BigInt(SAFE_UNITS);

/**
 * The columns are own fields, not private ones, so that deep equality (the replay and restore
 * tests compare event lists) sees every fill; read them through the methods. Capacity beyond
 * `length` is zero, and grows the same way for the same fills.
 */
export class FillColumns implements Fills {
  length = 0;
  bidRefs = new Int32Array(CAPACITY_INITIAL);
  askRefs = new Int32Array(CAPACITY_INITIAL);
  quantities = new Float64Array(CAPACITY_INITIAL);
  quotes = new Float64Array(CAPACITY_INITIAL);
  /** index -> [quantity, quote] of the fills whose amounts do not fit the columns. */
  wide: Map<number, readonly [bigint, bigint]> | null = null;

  /** A fill whose amounts are safe integers (the number walk; the quote computed exactly). */
  pushUnits(bidRef: number, askRef: number, quantity: number, quote: number): void {
    const index = this.#next();
    this.bidRefs[index] = bidRef;
    this.askRefs[index] = askRef;
    this.quantities[index] = quantity;
    this.quotes[index] = quote;
  }

  /** A fill of any size (the bigint walk, or a quote beyond 2^53). */
  push(bidRef: number, askRef: number, quantity: bigint, quote: bigint): void {
    if (quantity <= SAFE && quote <= SAFE) {
      this.pushUnits(bidRef, askRef, Number(quantity), Number(quote));
      return;
    }
    const index = this.#next();
    this.bidRefs[index] = bidRef;
    this.askRefs[index] = askRef;
    this.quantities[index] = Number.NaN;
    this.quotes[index] = Number.NaN;
    this.wide ??= new Map();
    this.wide.set(index, [quantity, quote]);
  }

  bidRef(index: number): number {
    return this.bidRefs[index] as number;
  }

  askRef(index: number): number {
    return this.askRefs[index] as number;
  }

  quantity(index: number): bigint {
    const units = this.quantities[index] as number;
    return Number.isNaN(units) ? this.#wideAt(index)[0] : bigintOfUnits(units);
  }

  quoteAmount(index: number): bigint {
    const units = this.quotes[index] as number;
    return Number.isNaN(units) ? this.#wideAt(index)[1] : bigintOfUnits(units);
  }

  quantityUnits(index: number): number {
    return this.quantities[index] as number;
  }

  quoteUnits(index: number): number {
    return this.quotes[index] as number;
  }

  totalQuantity(): bigint {
    // Summed as numbers while exact (each addend and every partial sum below 2^53: a sum that is
    // not rounds to 2^53 or more), else again as bigints.
    let units = 0;
    for (let index = 0; index < this.length; index += 1) units += this.quantities[index] as number;
    if (units <= SAFE_UNITS) return bigintOfUnits(units);
    let total = 0n;
    for (let index = 0; index < this.length; index += 1) total += this.quantity(index);
    return total;
  }

  at(index: number): Fill {
    if (!(Number.isInteger(index) && index >= 0 && index < this.length)) {
      throw new AssertionError(`no fill ${index} among ${this.length}`);
    }
    return {
      bidRef: this.bidRef(index),
      askRef: this.askRef(index),
      quantity: this.quantity(index),
      quoteAmount: this.quoteAmount(index),
    };
  }

  toArray(): Fill[] {
    return Array.from({ length: this.length }, (_, index) => this.at(index));
  }

  #next(): number {
    const index = this.length;
    if (index === this.bidRefs.length) this.#grow();
    this.length = index + 1;
    return index;
  }

  #grow(): void {
    const size = this.bidRefs.length * 2;
    this.bidRefs = grown(this.bidRefs, new Int32Array(size));
    this.askRefs = grown(this.askRefs, new Int32Array(size));
    this.quantities = grown(this.quantities, new Float64Array(size));
    this.quotes = grown(this.quotes, new Float64Array(size));
  }

  #wideAt(index: number): readonly [bigint, bigint] {
    const wide = this.wide?.get(index);
    if (wide === undefined) throw new AssertionError(`fill ${index} has no amounts`);
    return wide;
  }
}

/** The fills of a batch that filled nothing: shared, and never written (typed as read-only). */
export const NO_FILLS: Fills = new FillColumns();
