/**
 * @venue/adapters: everything around the core that touches the world. One folder per adapter:
 * `http` (REST), `enclave` (boot identity), `chain` (the chain clock); stream, oracle and journal
 * follow in later versions.
 */

export * from './accounts/account-file.ts';
export * from './accounts/account-registry.ts';
export * from './accounts/credential-hash.ts';
export * from './assembly/index.ts';
export * from './auth/auth-service.ts';
export * from './auth/token-service.ts';
export * from './chain/chain-rpc-client.ts';
export * from './chain/clock.ts';
export * from './chain/remote-settlement-chain.ts';
export * from './chain/root-mirror.ts';
export * from './chain/wall-slot-clock.ts';
export * from './config/limits.ts';
export * from './enclave/boot-identity.ts';
export * from './enclave/code-measurement.ts';
export * from './enclave/enclave-attestation.ts';
export * from './enclave/governance-watch.ts';
export * from './enclave/simulated-platform.ts';
export * from './enclave/tdx-platform.ts';
export * from './http/connections-per-address.ts';
export * from './http/console-routes.ts';
export * from './http/evidence-routes.ts';
export * from './http/public-routes.ts';
export * from './http/request-id.ts';
export * from './http/server.ts';
export * from './http/types.ts';
export * from './journal/index.ts';
export * from './oracle/oracle-monitor.ts';
export * from './rate-limit/token-bucket.ts';
export * from './rate-limit/trading-rate-limiter.ts';
export * from './replica/index.ts';
export * from './settlement/index.ts';
export * from './standby/index.ts';
export * from './stream/stream-frames.ts';
export * from './stream/stream-server.ts';
export * from './stream/stream-session.ts';
export * from './telemetry/index.ts';
export * from './venue/commitment-memo.ts';
export * from './venue/drain-control.ts';
export * from './venue/engine-boot.ts';
export * from './venue/intake-checks.ts';
export * from './venue/market-listing.ts';
export * from './venue/order-intake.ts';
export * from './venue/ports.ts';
export * from './venue/proof-checks.ts';
export * from './venue/state-companion.ts';
export * from './venue/trading-gates.ts';
export * from './venue/venue-engine.ts';
export * from './workers/settlement-pool.ts';
export type * from './workers/settlement-work.ts';
export * from './workers/signature-pool.ts';
