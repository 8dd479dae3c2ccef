import { type DrainResponse, VenueError } from '@venue/protocol';
import type { TradingGates } from './trading-gates.ts';

/**
 * The planned stop of spec 4.7: begin closes new trading (cancels keep working) and waits for the
 * journal to have nothing in flight; then the venue is safe to stop, losing nothing acknowledged.
 * Cancelling the drain reopens trading. The journal (issue 9) reports its in-flight count through
 * `journalRecordsInFlight`; until it exists nothing is ever in flight.
 */
export class DrainControl {
  readonly #gates: TradingGates;
  readonly #journalRecordsInFlight: () => number;
  #sinceMs: number | null = null;

  constructor(gates: TradingGates, journalRecordsInFlight: () => number = () => 0) {
    this.#gates = gates;
    this.#journalRecordsInFlight = journalRecordsInFlight;
  }

  status(): DrainResponse {
    const inFlight = this.#journalRecordsInFlight();
    if (this.#sinceMs === null) {
      return { state: 'open', trading_closed: this.#gates.paused, journal_records_in_flight: inFlight };
    }
    return {
      state: inFlight === 0 ? 'safe_to_stop' : 'draining',
      trading_closed: true,
      journal_records_in_flight: inFlight,
      since_ms: this.#sinceMs,
    };
  }

  begin(nowMs: number): DrainResponse {
    if (this.#sinceMs !== null) {
      throw new VenueError(
        'DRAIN_CONFLICT',
        'a drain is already under way; GET /admin/drain shows its progress',
      );
    }
    this.#sinceMs = nowMs;
    this.#gates.set('draining', true);
    return this.status();
  }

  cancel(): DrainResponse {
    if (this.#sinceMs === null) {
      throw new VenueError('DRAIN_CONFLICT', 'no drain is under way; nothing to cancel');
    }
    this.#sinceMs = null;
    this.#gates.set('draining', false);
    return this.status();
  }
}
