import type { SimReport } from './simulator.ts';

/** Sums of many runs' reports, for the scripts' summary lines. */
export class SimTotals {
  seeds = 0;
  calm = 0;
  steps = 0;
  records = 0;
  requests = 0;
  acks = 0;
  refused = 0;
  orders = 0;
  events = 0;
  frames = 0;
  crashes = 0;
  readonly settlementBatches: Record<string, number> = {};
  readonly faults: Record<string, number> = {};
  readonly refusals: Record<string, number> = {};
  readonly deadMan: Record<string, number> = {};

  add(report: SimReport): void {
    this.seeds += 1;
    this.steps += report.steps;
    this.records += report.records;
    this.requests += report.requests;
    this.acks += report.acks;
    this.refused += report.refused;
    this.orders += report.orders;
    this.events += report.events;
    this.frames += report.frames;
    this.crashes += report.crashes;
    for (const [symbol, count] of Object.entries(report.settlementBatches))
      this.settlementBatches[symbol] = (this.settlementBatches[symbol] ?? 0) + count;
    if (Object.keys(report.faults).length === 0) this.calm += 1;
    for (const [kind, count] of Object.entries(report.faults))
      this.faults[kind] = (this.faults[kind] ?? 0) + count;
    for (const [name, count] of Object.entries(report.refusals))
      this.refusals[name] = (this.refusals[name] ?? 0) + count;
    for (const [name, count] of Object.entries(report.deadMan))
      this.deadMan[name] = (this.deadMan[name] ?? 0) + count;
  }

  summary(): string[] {
    const list = (counts: Record<string, number>) =>
      Object.entries(counts)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
    return [
      `${this.seeds} seeds (${this.calm} calm): ${this.steps} steps, ${this.records} journal records, ` +
        `${this.requests} signed requests (${this.acks} acknowledged, ${this.refused} refused), ` +
        `${this.orders} orders, ${this.events} order events, ${this.frames} stream frames, ` +
        `settlement batches (${list(this.settlementBatches)}), ${this.crashes} crashes recovered`,
      `faults: ${list(this.faults)}`,
      `refusals: ${list(this.refusals)}`,
      `dead-man timers: ${list(this.deadMan)}`,
    ];
  }
}
