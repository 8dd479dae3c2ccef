import type { Instrument, MarketSettlement } from './api.ts';
import { type PromSample, valueFor } from './prometheus.ts';

/** What the oracle's side of a market looks like from its pause reason (the monitor's verdict). */
function oracleVerdict(instrument: Instrument): string {
  switch (instrument.paused_reason) {
    case 'oracle_stale':
      return 'stale';
    case 'oracle_missing':
      return 'missing';
    case 'oracle_invalid':
      return 'invalid';
    default:
      // A venue-wide pause or a tripped breaker says nothing against the feed itself.
      return 'fresh';
  }
}

interface Props {
  readonly instruments: readonly Instrument[];
  readonly settlement: readonly MarketSettlement[];
  readonly metrics: readonly PromSample[];
}

/** The verdict, and how old the last accepted price is when the venue has one. */
function oracleFreshness(instrument: Instrument, metrics: readonly PromSample[]): string {
  const age = valueFor(metrics, 'venue_oracle_age_slots', 'market', instrument.symbol);
  const verdict = oracleVerdict(instrument);
  return age === undefined ? verdict : `${verdict} (${age} of ${instrument.oracle_max_age_slots} slots)`;
}

export function MarketsTable({ instruments, settlement, metrics }: Props) {
  const bySymbol = new Map(settlement.map((m) => [m.symbol, m]));
  return (
    <section>
      <h2>Markets</h2>
      <table data-testid="markets">
        <thead>
          <tr>
            <th>Market</th>
            <th>State</th>
            <th>Pause reason</th>
            <th>Oracle</th>
            <th>Next batch</th>
            <th>Settlement queue</th>
            <th>Batches settled / failed</th>
            <th>Match to final p50 / p99 (slots)</th>
          </tr>
        </thead>
        <tbody>
          {instruments.map((instrument) => {
            const settled = bySymbol.get(instrument.symbol);
            const state = instrument.trading_enabled ? 'trading' : 'paused';
            return (
              <tr key={instrument.symbol} data-testid={`market-${instrument.symbol}`} data-state={state}>
                <td>{instrument.symbol}</td>
                <td className={`state-${state}`} data-testid="market-state">
                  {state}
                </td>
                <td data-testid="market-reason">{instrument.paused_reason ?? ''}</td>
                <td data-testid="market-oracle" data-verdict={oracleVerdict(instrument)}>
                  {oracleFreshness(instrument, metrics)}
                </td>
                <td data-testid="market-batch-seq">{instrument.batch_seq}</td>
                <td data-testid="market-queue">{settled?.queue_depth ?? 0}</td>
                <td data-testid="market-batches">
                  {settled?.batches_confirmed ?? 0} / {settled?.batches_failed ?? 0}
                </td>
                <td>
                  {settled?.match_to_final_slots_p50 ?? '-'} / {settled?.match_to_final_slots_p99 ?? '-'}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
