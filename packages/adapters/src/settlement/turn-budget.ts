import { assert } from '@venue/protocol';

/**
 * How much of one event-loop turn the settlement pipeline may use. The sequencer shares its thread
 * with intake and the stream, so a beat with thousands of legs to plan, prove or report must not do
 * them all at once: the pipeline asks `spent()` between legs and, once the budget is used, stops
 * where it is and resumes on a later turn (setImmediate: after the I/O that waited). Everything
 * between two legs is already a state the pipeline can be in (a group waiting in `admitting`, a
 * batch whose proofs are still coming), so stopping there changes when work happens, never what.
 *
 * A turn is everything that runs from the first call of `begin()` until the loop's next timers
 * phase: one iteration of the event loop (its I/O callbacks, promise continuations and immediates)
 * shares one budget. Ending it at the check phase instead let a step stopped in an I/O callback
 * resume with setImmediate in the same iteration, so two budgets ran back to back with no timer
 * and no I/O between them, which is what the loop's delay measures.
 */
export class TurnBudget {
  readonly #budgetMs: number | undefined;
  readonly #resume: () => void;
  #deadline = 0;
  #open = false;
  /** Whether this turn's first unit of work was handed out: every turn makes progress, even at 0 ms. */
  #granted = false;
  #resumeQueued = false;

  /** `budgetMs` undefined: no limit (spent() is always false). `resume` runs on the turn after a stop. */
  constructor(budgetMs: number | undefined, resume: () => void) {
    assert(budgetMs === undefined || (Number.isFinite(budgetMs) && budgetMs >= 0), 'turnBudgetMs: 0 or more');
    this.#budgetMs = budgetMs;
    this.#resume = resume;
  }

  /** Starts the turn's clock unless this turn already has one. */
  begin(): void {
    if (this.#budgetMs === undefined || this.#open) return;
    this.#open = true;
    this.#granted = false;
    this.#deadline = performance.now() + this.#budgetMs;
    // Runs in the timers phase of a later iteration, so the budget covers the whole of this one.
    setTimeout(() => {
      this.#open = false;
    }, 0).unref();
  }

  /**
   * Asked before each unit of work (a leg): true once this turn's budget is used, and the pipeline
   * is then resumed on a later turn. The first unit of a turn is always granted.
   */
  spent(): boolean {
    if (this.#budgetMs === undefined) return false;
    this.begin();
    if (!this.#granted) {
      this.#granted = true;
      return false;
    }
    if (performance.now() <= this.#deadline) return false;
    this.#resumeLater();
    return true;
  }

  #resumeLater(): void {
    if (this.#resumeQueued) return;
    this.#resumeQueued = true;
    setImmediate(() => {
      this.#resumeQueued = false;
      this.#resume();
    });
  }

  /**
   * True once this turn did some work and its budget is used, without asking for a unit: lets a
   * loop over many waiting items stop early (the pipeline is resumed on a later turn).
   */
  exhausted(): boolean {
    if (this.#budgetMs === undefined || !this.#open || !this.#granted) return false;
    if (performance.now() <= this.#deadline) return false;
    this.#resumeLater();
    return true;
  }

  /**
   * Counts work done outside `spent()` (a group locked, a step that asked no unit) as this turn's
   * unit, so `exhausted()` can stop a loop of such steps once the budget is used.
   */
  worked(): void {
    if (this.#budgetMs === undefined) return;
    this.begin();
    this.#granted = true;
  }

  /**
   * For async work (a batch's proof requests), before each unit: waits for a later turn when this
   * one is spent (an immediate may still be in the same turn: it waits until a unit is granted).
   */
  async next(): Promise<void> {
    while (this.spent()) await new Promise((resolve) => setImmediate(resolve));
  }

  /** Whether the pipeline works in slices at all. */
  get limited(): boolean {
    return this.#budgetMs !== undefined;
  }
}
