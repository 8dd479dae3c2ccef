/** The deterministic simulator (issue 11): docs/simulation.md. */
export * from './faults.ts';
export * from './journal-audit.ts';
export * from './order-ledger.ts';
export * from './random.ts';
export * from './sim-client.ts';
export * from './sim-disk.ts';
export * from './sim-hasher.ts';
export * from './sim-socket.ts';
export * from './sim-totals.ts';
export * from './sim-venue.ts';
export * from './simulator.ts';
