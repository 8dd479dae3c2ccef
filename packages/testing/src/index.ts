/** @venue/testing: helpers and the simulated world for tests. Production code never imports it. */

export * from './barrier-prover.ts';
export * from './core-fixtures.ts';
export * from './errors.ts';
export * from './failover-chain.ts';
export * from './failover-world.ts';
export * from './free-ports.ts';
export * from './https-client.ts';
export * from './journal-fixtures.ts';
export * from './manual-clock.ts';
export * from './nats-cluster.ts';
export * from './note-orders.ts';
export * from './proving-venue.ts';
export * from './stream-client.ts';
export * from './tdx/dcap-test-pki.ts';
export * from './tdx/fake-tsm.ts';
export * from './tdx/tdx-test-quote.ts';
export * from './tdx/test-pccs.ts';
export * from './venue-fixture.ts';
