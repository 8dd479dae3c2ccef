/**
 * The chain's wire contract (docs/chain-sim.md section 11): its JSON-RPC methods, every request's
 * params and every reply as schemas, the canonical bytes of its signed messages, and its error
 * codes. The simulator's server, the venue's chain client (adapters/src/chain) and the SDK's chain
 * calls all go through it; nothing else declares a chain message.
 */
export * from './accounts.ts';
export * from './byte-writer.ts';
export * from './errors.ts';
export * from './frozen.ts';
export * from './limits.ts';
export * from './methods.ts';
export * from './primitives.ts';
export * from './requests.ts';
export * from './rpc.ts';
export * from './settlement.ts';
export * from './signing.ts';
export * from './views.ts';
