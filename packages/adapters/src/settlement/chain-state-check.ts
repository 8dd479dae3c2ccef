import type { VenueEngine } from '../venue/venue-engine.ts';
import type { LandedBatches } from './landed-batches.ts';
import type { SettlementChain } from './settlement-chain.ts';

/**
 * Is the recovered state as new as the chain? (docs/durability.md "State against the chain".)
 *
 * Every file of a state directory put back from an older copy is authentic, and a wiped one is a
 * clean empty state, so the disk cannot tell either from the real thing. The chain can: it numbers
 * each market's landed settlement batches without gaps, from 0, and nobody can rewind that count.
 * The journal records the number of each batch it settled (`LandedBatches`). A current state knows
 * every landed batch, except the one batch in flight when the venue stopped, which may have landed
 * before its outcome was journaled; that batch's matches are then still pending in the state, and
 * the pipeline settles them from the chain at boot.
 */

/** Why a state may not trade or settle on this chain; each is also the venue-wide pause reason. */
export type StateMismatch = 'state_behind_chain' | 'chain_behind_state';

export type MarketVerdict = 'consistent' | StateMismatch;

/**
 * The decision for one market. `local` is the newest batch the journal recorded, `chainLast` the
 * newest the chain landed (both NO_BATCH, -1, for none), `pending` whether the state still holds a
 * match of the market waiting for settlement.
 */
export function judgeMarket(local: bigint, chainLast: bigint, pending: boolean): MarketVerdict {
  // The journal knows a batch the chain never landed: another chain, or one reset since.
  if (chainLast < local) return 'chain_behind_state';
  if (chainLast === local) return 'consistent';
  // One more: the batch in flight at the stop landed before its outcome was journaled.
  if (chainLast === local + 1n && pending) return 'consistent';
  return 'state_behind_chain';
}

export interface MarketCheck {
  readonly marketId: string;
  readonly local: bigint;
  readonly chainLast: bigint;
  readonly verdict: MarketVerdict;
}

export type CheckStatus =
  /** The chain's view does not hold every market yet: nothing settles until it does. */
  | { readonly state: 'waiting' }
  | { readonly state: 'consistent' }
  /** A mismatch the operator accepted at start (disaster recovery): the venue trades and settles. */
  | { readonly state: 'accepted'; readonly reason: StateMismatch; readonly markets: readonly MarketCheck[] }
  /** Trading is paused venue-wide with `reason`, and nothing settles. */
  | { readonly state: 'refused'; readonly reason: StateMismatch; readonly markets: readonly MarketCheck[] };

export interface ChainStateCheckOptions {
  readonly engine: VenueEngine;
  readonly chain: SettlementChain;
  readonly landed: LandedBatches;
  /** Closes new trading venue-wide (the server's TradingGates). */
  readonly pause: (reason: StateMismatch) => void;
  /** One operator line on a mismatch: market ids and batch numbers, nothing about orders. */
  readonly log: (line: string) => void;
  /** The operator accepts a state older than the chain, or a different chain: log, then go on. */
  readonly acceptMismatch?: boolean;
}

/**
 * Decides once, at the first moment the chain's view holds every listed market, and keeps the
 * answer for the boot. The settlement pipeline asks before each step (`allowsSettlement`), so it
 * never locks, submits or records anything on a state the check has not passed.
 */
export class ChainStateCheck {
  readonly #o: ChainStateCheckOptions;
  #status: CheckStatus = { state: 'waiting' };

  constructor(options: ChainStateCheckOptions) {
    this.#o = options;
  }

  get status(): CheckStatus {
    return this.#status;
  }

  /** Decides if it can (and has not); true once settling on this state is allowed. */
  allowsSettlement(): boolean {
    if (this.#status.state === 'waiting') this.#decide();
    return this.#status.state === 'consistent' || this.#status.state === 'accepted';
  }

  #decide(): void {
    const { engine, chain, landed } = this.#o;
    const marketIds = engine.markets().map((market) => market.marketId);
    if (!(chain.sees?.({ markets: marketIds }) ?? true)) return;
    const pending = new Set(engine.core.pendingMatches().map((match) => match.marketId));
    const markets = marketIds.map((marketId): MarketCheck => {
      const local = landed.last(marketId);
      const chainLast = chain.nextBatchSeq(marketId) - 1n;
      return { marketId, local, chainLast, verdict: judgeMarket(local, chainLast, pending.has(marketId)) };
    });
    const wrong = markets.filter((m) => m.verdict !== 'consistent');
    if (wrong.length === 0) {
      this.#status = { state: 'consistent' };
      return;
    }
    // A state behind the chain lost acknowledged work: that is the reason to name first.
    const reason: StateMismatch = wrong.some((m) => m.verdict === 'state_behind_chain')
      ? 'state_behind_chain'
      : 'chain_behind_state';
    const detail = wrong
      .map((m) => `market ${m.marketId}: state batch ${m.local}, chain batch ${m.chainLast}`)
      .join('; ');
    if (this.#o.acceptMismatch === true) {
      this.#status = { state: 'accepted', reason, markets: wrong };
      this.#o.log(
        `${describe(reason)} (${detail}); accepted by chain.accept_state_mismatch: trading and settling on this state`,
      );
      return;
    }
    this.#status = { state: 'refused', reason, markets: wrong };
    this.#o.pause(reason);
    this.#o.log(
      `${describe(reason)} (${detail}); new trading is paused (${reason}) and nothing settles. Restore the newest state directory, or start with chain.accept_state_mismatch to accept the loss (docs/operations.md)`,
    );
  }
}

function describe(reason: StateMismatch): string {
  return reason === 'state_behind_chain'
    ? 'the state directory is older than the chain: settlements landed that its journal does not know'
    : 'the chain is behind the state directory: its journal knows settlements this chain never landed (another or a reset chain)';
}
