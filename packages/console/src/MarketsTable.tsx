import type { Instrument, MarketSettlement } from './api.ts';

/** What the oracle's side of a market looks like from its pause reason (the monitor's verdict). */
function oracleFreshness(instrument: Instrument): string {
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
}

export function MarketsTable({ instruments, settlement }: Props) {
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
            const metrics = bySymbol.get(instrument.symbol);
            const state = instrument.trading_enabled ? 'trading' : 'paused';
            return (
              <tr key={instrument.symbol} data-testid={`market-${instrument.symbol}`} data-state={state}>
                <td>{instrument.symbol}</td>
                <td className={`state-${state}`} data-testid="market-state">
                  {state}
                </td>
                <td data-testid="market-reason">{instrument.paused_reason ?? ''}</td>
                <td data-testid="market-oracle">{oracleFreshness(instrument)}</td>
                <td data-testid="market-batch-seq">{instrument.batch_seq}</td>
                <td data-testid="market-queue">{metrics?.queue_depth ?? 0}</td>
                <td data-testid="market-batches">
                  {metrics?.batches_confirmed ?? 0} / {metrics?.batches_failed ?? 0}
                </td>
                <td>
                  {metrics?.match_to_final_slots_p50 ?? '-'} / {metrics?.match_to_final_slots_p99 ?? '-'}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
