/**
 * @venue/chain-sim: the settlement chain simulator (docs/chain-sim.md). In-process through
 * ChainSimulator, or over JSON-RPC through startRpcServer / src/main.ts. Its wire contract is
 * @venue/protocol's (packages/protocol/src/chain); the venue's client of it is in @venue/adapters.
 */
export * from './bytes.ts';
export * from './chain.ts';
export * from './clock.ts';
export * from './errors.ts';
export * from './limits.ts';
export * from './match-proofs.ts';
export * from './messages.ts';
export * from './reads.ts';
export * from './rpc-server.ts';
export * from './spend-authority.ts';
export * from './types.ts';
export * from './venue-chain-ports.ts';
export * from './venue-port.ts';
