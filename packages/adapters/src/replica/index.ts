/** The snapshot replica: snapshots taken off the sequencer's thread (docs/durability.md). */
export * from './companion-registry.ts';
export * from './journal-follower.ts';
export * from './replica-state.ts';
export * from './snapshot-replica.ts';
