/**
 * @venue/chain-sim: the settlement chain simulator (docs/chain-sim.md). In-process through
 * ChainSimulator, or over JSON-RPC through startRpcServer / ChainRpcClient / src/main.ts.
 */
export * from './bytes.ts';
export * from './chain.ts';
export * from './clock.ts';
export * from './errors.ts';
export * from './limits.ts';
export * from './messages.ts';
export * from './reads.ts';
export * from './rpc-client.ts';
export * from './rpc-server.ts';
export * from './spend-authority.ts';
export * from './types.ts';
export * from './venue-chain-ports.ts';
export * from './venue-port.ts';
