import {
  ChainRpcClient,
  type ChainWork,
  type Enclave,
  marketConfigKey,
  marketParamsOf,
  RemoteSettlementChain,
} from '@venue/adapters';
import { ChainError, type MarketAccount, type MarketParams } from '@venue/protocol';
import type { ServeConfig } from './serve-config.ts';

/**
 * Settlement of a served venue on a chain it reaches over JSON-RPC (docs/settlement.md section 9,
 * docs/operations.md). The pipeline is the one every venue runs (assembleVenue); its chain port is
 * chain-sim's `RemoteSettlementChain`, which reads a per-beat view and queues writes. Each poll
 * refreshes that view and is one beat: the pipeline's step and the governance watch (shared fate:
 * final governance naming another build or signer pauses new trading on every market).
 */

/** Longest a settlement RPC may take before its outcome counts as unknown (it is asked again). */
const SETTLEMENT_RPC_TIMEOUT_MS_MIN = 2_000;

/** The remote chain, checked and read once, before the venue opens its state. */
export async function openRemoteSettlement(
  config: ServeConfig,
  enclave: Enclave,
  log: (line: string) => void,
  work: ChainWork,
): Promise<RemoteSettlementChain> {
  // Requests are written and replies read on the settlement worker: a batch's JSON-RPC text is
  // megabytes, which would otherwise be built on the sequencer's thread.
  const rpc = new ChainRpcClient(
    config.chain.rpcUrl,
    Math.max(SETTLEMENT_RPC_TIMEOUT_MS_MIN, config.chain.pollMs * 5),
    work,
  );
  await checkProofMode(config, rpc);
  await checkMarketAccounts(config, rpc);
  const remote = new RemoteSettlementChain(rpc, enclave.settlementSigner, { onProblem: log, work });
  // The first view holds the markets' batch numbers, so the state check decides at boot, before
  // the venue listens (chain-state-check.ts).
  remote.sees({ markets: config.markets.map((listing) => listing.config.marketId) });
  if (!(await remote.refresh())) {
    throw new Error(`chain.rpc_url ${config.chain.rpcUrl} does not answer getSettlementView`);
  }
  const governance = remote.governanceValues();
  if (governance.settlement_signer !== enclave.settlementSigner.publicKey) {
    // Not an error: trading stays paused (signer_mismatch) until governance names this signer.
    log(
      `the chain's final governance does not name this venue's settlement signer ${enclave.settlementSigner.publicKey} (measurement ${enclave.measurement}); trading stays paused until a governance action naming both is final`,
    );
  }
  return remote;
}

/**
 * A served venue proves every settlement leg with the real VALID_MATCH circuit: a chain that takes
 * stand-in proofs (a test chain) would accept a batch it cannot check, so serve refuses to settle on it.
 */
async function checkProofMode(config: ServeConfig, rpc: ChainRpcClient): Promise<void> {
  const info = await rpc.request('getChainInfo', {});
  if (info.match_proofs !== 'groth16') {
    throw new Error(
      `chain.rpc_url ${config.chain.rpcUrl} verifies settlement proofs in ${info.match_proofs} mode; venue serve settles only on a chain that verifies Groth16 proofs (start the chain without --match-proofs stand-in, or set chain.settle to false)`,
    );
  }
}

/**
 * Settlement is checked against the chain's market account (every field `venue chain setup` writes): a
 * listed market the chain does not know, or knows otherwise, could never settle, so serve refuses
 * to start and says which market and which field.
 */
async function checkMarketAccounts(config: ServeConfig, rpc: ChainRpcClient): Promise<void> {
  for (const [i, listing] of config.markets.entries()) {
    const market = listing.config;
    let account: MarketAccount;
    try {
      account = await rpc.request('getMarket', { market_id: market.marketId });
    } catch (error) {
      if (error instanceof ChainError && error.reason === 'not_found') {
        throw new Error(
          `markets[${i}].market_id: the chain has no market account at ${market.marketId}; create it there (chain-sim createMarket) or set chain.settle to false`,
        );
      }
      throw new Error(
        `chain.rpc_url ${config.chain.rpcUrl} does not answer getMarket (${(error as Error).message})`,
      );
    }
    for (const [field, here] of Object.entries(marketParamsOf(market))) {
      const onChain = account[field as keyof MarketAccount];
      if (onChain !== here) {
        throw new Error(
          `markets[${i}].${marketConfigKey(field as keyof MarketParams)}: ${String(here)} here, but the chain's market account says ${String(onChain)}; they must agree for settlement`,
        );
      }
    }
  }
}
