/**
 * @venue/sdk: the client of the venue for trading bots (docs/sdk.md). It attests the venue before
 * it sends anything secret, pins the attested TLS key on every connection, keeps the bearer token
 * fresh, signs orders with increasing nonces and follows the session stream with gap recovery.
 */
export { type AttestedVenue, checkTrustAnchors, type TrustAnchors } from './attestation.ts';
export {
  type ConnectOptions,
  type Credentials,
  connectVenue,
  HTTP_SOCKETS_MAX_DEFAULT,
  LOGIN_CAPACITY_RETRIES_MAX,
  RECONCILE_ORDERS_MAX,
  VenueClient,
} from './client.ts';
export {
  ATTESTATION_FAILURES,
  AttestationError,
  type AttestationFailure,
  StreamClosedError,
  VenueApiError,
} from './errors.ts';
export { REQUEST_TIMEOUT_MS_DEFAULT, RESPONSE_BYTES_MAX } from './http.ts';
export { peerSpkiSha256 } from './pinning.ts';
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
  RECONNECT_DELAY_MS_MAX,
  RECONNECT_DELAY_MS_MIN,
  STREAM_PENDING_REQUESTS_MAX,
  STREAM_SILENCE_MS_MAX,
  type StreamEventMap,
  type StreamGap,
  type StreamTestHooks,
  VenueStream,
} from './stream.ts';
export { type Clock, type HeldToken, SYSTEM_CLOCK, TOKEN_REFRESH_MARGIN_MS_DEFAULT } from './tokens.ts';
