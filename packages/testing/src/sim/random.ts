/**
 * The simulator's only source of randomness: a seeded 32-bit generator (mulberry32). One seed gives
 * one run, bit for bit, so a failing seed reproduces exactly. Nothing in the simulated world may
 * call Math.random or read the wall clock.
 */
export class SimRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A uniform 32-bit unsigned integer. */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return this.next() % n;
  }

  /** True with probability `p` (0..1). */
  chance(p: number): boolean {
    return this.next() / 0x1_0000_0000 < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.below(items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }
}
