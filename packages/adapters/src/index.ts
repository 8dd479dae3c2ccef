/**
 * @venue/adapters: everything around the core that touches the world. One folder per adapter:
 * `http` (REST), `enclave` (boot identity), `chain` (the chain clock); stream, oracle and journal
 * follow in later versions.
 */
export * from './chain/clock.ts';
export * from './chain/wall-slot-clock.ts';
export * from './config/limits.ts';
export * from './enclave/boot-identity.ts';
export * from './http/public-routes.ts';
export * from './http/request-id.ts';
export * from './http/server.ts';
export * from './http/types.ts';
