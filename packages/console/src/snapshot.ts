import * as api from './api.ts';
import { type PromSample, parsePrometheus } from './prometheus.ts';

/** One poll of everything the console shows: venue-wide aggregates, nothing about a single order. */
export interface Snapshot {
  readonly takenAtMs: number;
  readonly status: api.SystemStatus;
  readonly info: api.Info;
  readonly instruments: readonly api.Instrument[];
  readonly settlement: readonly api.MarketSettlement[];
  readonly drain: api.Drain;
  readonly accounts: readonly api.AccountEntry[];
  readonly attestation: api.Attestation | null;
  /** The venue's Prometheus metrics at the same moment: rates and latencies for the charts. */
  readonly metrics: readonly PromSample[];
}

export async function takeSnapshot(token: string): Promise<Snapshot> {
  const [status, info, instruments, settlement, drain, accounts, attestation, metrics] = await Promise.all([
    api.systemStatus(),
    api.info(),
    api.instruments(),
    api.settlementMetrics(token),
    api.drain(token),
    api.accounts(token),
    api.attestation(),
    api.prometheus(token),
  ]);
  return {
    takenAtMs: Date.now(),
    status,
    info,
    instruments: instruments.instruments,
    settlement: settlement.markets,
    drain,
    accounts: accounts.accounts,
    attestation,
    metrics: parsePrometheus(metrics),
  };
}

/** How often the console polls: fast enough to show a pause within a second. */
export const POLL_INTERVAL_MS = 500;
