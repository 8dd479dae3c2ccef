/** The deterministic simulator (issue 11): docs/simulation.md. */
export * from './faults.ts';
export * from './order-ledger.ts';
export * from './random.ts';
export * from './simulator.ts';
