/**
 * @venue/sdk: the client of the venue for trading bots (docs/sdk.md). It attests the venue before
 * it sends anything secret, pins the attested TLS key on every connection, keeps the bearer token
 * fresh, signs orders with increasing nonces and follows the session stream with gap recovery.
 */
export { type AttestedVenue, checkTrustAnchors, type TrustAnchors } from './attestation.ts';
export {
  CHAIN_RPC_RESPONSE_BYTES_MAX,
  CHAIN_RPC_TIMEOUT_MS_DEFAULT,
  ChainRpcError,
  type ChainWithdrawRequest,
  type ConsumedEntry,
  chainConsumed,
  chainDeposit,
  chainRpcCall,
  chainWithdraw,
  type DepositReceipt,
  type WithdrawReceipt,
} from './chain-rpc.ts';
export {
  type ConnectOptions,
  type Credentials,
  connectVenue,
  type FailoverEvent,
  VenueClient,
} from './client.ts';
export { DurableNonceCounter, NonceFile } from './durable-nonces.ts';
export {
  ATTESTATION_FAILURES,
  AttestationError,
  type AttestationFailure,
  retryDelayMsOf,
  StreamClosedError,
  VenueApiError,
} from './errors.ts';
export { KEY_FILE_FORMAT, KeyFile, type KeyFilePublicParts } from './key-file.ts';
export {
  brokenSdkLimitRelations,
  CANDIDATE_STEPS_MAX,
  checkSdkLimits,
  EXPIRY_SLACK_SLOTS,
  FAILOVER_PAUSE_MS,
  FAILOVER_WAIT_MS_MAX_DEFAULT,
  HTTP_SOCKETS_MAX_DEFAULT,
  NONCE_RESERVE_BLOCK,
  ORDER_LIFETIME_SLOTS_DEFAULT,
  OUTPUT_VALUES_MAX,
  RATE_LIMIT_RETRIES_MAX_DEFAULT,
  RATE_LIMIT_WAIT_MS_MAX_DEFAULT,
  RECONCILE_ORDERS_MAX,
  RECONCILE_READS_MAX,
  RECONNECT_DELAY_MS_MAX,
  RECONNECT_DELAY_MS_MIN,
  REQUEST_TIMEOUT_MS_DEFAULT,
  RESPONSE_BYTES_MAX,
  SCAN_INCLUSION_CHECKS_MAX,
  SCAN_OUTPUT_SEARCHES_MAX,
  SEALED_RECORD_BYTES_MAX,
  STREAM_PENDING_REQUESTS_MAX,
  STREAM_SILENCE_MS_MAX,
  TIME_READ_REUSE_MS,
  TOKEN_REFRESH_MARGIN_MS_DEFAULT,
  WALLET_ERRORS_KEPT_MAX,
} from './limits.ts';
export {
  type Balance,
  type DepositFields,
  type ExpectedOutput,
  type FillFacts,
  type FillMemoDecryptor,
  type MarketTerms,
  type NoteInput,
  type NoteOrigin,
  type NoteStatus,
  NoteWallet,
  type NoteWalletOptions,
  nominalCost,
  type OrderOutcome,
  type ScanProgress,
  STUB_PROOF,
  spentMintOf,
  type TreeReader,
  type UnresolvedOutput,
  type ValueRule,
  type WalletNote,
} from './note-wallet.ts';
export type { OrderRequest } from './order-request.ts';
export { isTerminal, type LocalOrder, type LocalOrderState, OrderStore } from './order-store.ts';
export { peerSpkiSha256 } from './pinning.ts';
export { writePrivateFileSync } from './private-files.ts';
export { SealedLog } from './sealed-log.ts';
export {
  NONCES_PER_MS,
  NonceCounter,
  newOrderId,
  type OrderDraft,
  TradingKeys,
  type TradingKeysOptions,
} from './signing.ts';
export {
  type LoginResult,
  type OpenStreamOptions,
  type StreamEventMap,
  type StreamGap,
  type StreamTestHooks,
  VenueStream,
} from './stream.ts';
export {
  INTEL_SGX_ROOT_CA_PEM,
  INTEL_SGX_ROOT_CA_SHA256,
  TDX_TCB_STATUSES_DEFAULT,
  type TdxCollateralSource,
  type TdxMeasurement,
  type TdxTrust,
} from './tdx/tdx-trust.ts';
export {
  checkTdxAttestation,
  checkTdxBinding,
  type VerifiedTdxQuote,
  verifyTdxQuote,
} from './tdx/verify-tdx.ts';
export { type Clock, type HeldToken, SYSTEM_CLOCK } from './tokens.ts';
export {
  type ModifyChanges,
  Trader,
  type TraderOpenOptions,
  type TraderOptions,
} from './trader.ts';
export { openFillMemoWithKeyFile } from './wallet/fill-memos.ts';
export { quoteShortfallMax } from './wallet/inferred-outputs.ts';
export { NoteStateError } from './wallet/note-lifecycle.ts';
