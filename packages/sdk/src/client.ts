import {
  type AccountResponse,
  AccountResponseSchema,
  type AccountSettings,
  AccountSettingsSchema,
  type AccountStatusResponse,
  AccountStatusResponseSchema,
  type AttestationReport,
  type AuctionExplanation,
  AuctionExplanationSchema,
  type CancelParams,
  CancelParamsSchema,
  type CancelResponse,
  CancelResponseSchema,
  type CreateAccountRequest,
  CreateAccountRequestSchema,
  type CreateAccountResponse,
  CreateAccountResponseSchema,
  DeadManArmRequestSchema,
  type DeadManStatus,
  DeadManStatusSchema,
  type DrainResponse,
  DrainResponseSchema,
  ERRORS,
  type InclusionProofResponse,
  InclusionProofResponseSchema,
  type InfoResponse,
  InfoResponseSchema,
  type Instrument,
  InstrumentListResponseSchema,
  InstrumentSchema,
  LEAVES_PAGE_MAX,
  type LeavesResponse,
  LeavesResponseSchema,
  type ModifyRequest,
  ModifyRequestSchema,
  type ModifyResponse,
  ModifyResponseSchema,
  type OrderRecord,
  OrderRecordSchema,
  type PlaceOrder,
  PlaceOrderSchema,
  type PlaceResponse,
  PlaceResponseSchema,
  RevokeTokenResponseSchema,
  type SettlementLookup,
  type SettlementMetricsResponse,
  SettlementMetricsResponseSchema,
  type SettlementStatusResponse,
  SettlementStatusResponseSchema,
  type TimeResponse,
  TimeResponseSchema,
  TokenRequestSchema,
  type TokenResponse,
  TokenResponseSchema,
  type TreeRoot,
  TreeRootsResponseSchema,
  wireJsonText,
} from '@venue/protocol';
import { type AttestedVenue, attestVenue, type TrustAnchors } from './attestation.ts';
import { AttestationError, VenueApiError } from './errors.ts';
import { apiErrorOf, decodeResponse, type HttpExchange, httpExchange } from './http.ts';
import {
  checkSdkLimits,
  FAILOVER_PAUSE_MS,
  FAILOVER_WAIT_MS_MAX_DEFAULT,
  HTTP_SOCKETS_MAX_DEFAULT,
  RATE_LIMIT_RETRIES_MAX_DEFAULT,
  RATE_LIMIT_WAIT_MS_MAX_DEFAULT,
  RECONCILE_ORDERS_MAX,
  REQUEST_TIMEOUT_MS_DEFAULT,
  TOKEN_REFRESH_MARGIN_MS_DEFAULT,
} from './limits.ts';
import { SpkiAgent } from './pinning.ts';
import { type OpenStreamOptions, VenueStream } from './stream.ts';
import { type Clock, type HeldToken, SYSTEM_CLOCK, TokenKeeper } from './tokens.ts';

/**
 * The venue's REST interface (spec 4) over connections pinned to the attested key. Created only by
 * connectVenue, after the attestation passed: there is no way to build one that skipped it.
 */

export interface ConnectOptions {
  /** Origin of the venue, `https://host:port`. Plain http is refused. */
  readonly url: string;
  /**
   * Other origins of the same venue (its hot standbys, docs/operations.md). When the current boot
   * stops answering, the client attests these (and `url` again) in turn and moves to the first
   * boot that passes, logs in again, and tells its streams and traders (`onFailover`).
   */
  readonly failoverUrls?: readonly string[];
  /** How long a failover keeps trying the endpoints before giving up (default 30 s). */
  readonly failoverWaitMsMax?: number;
  /** The trust anchors: platform roots and allowed code measurements. Required, never optional. */
  readonly trust: TrustAnchors;
  /** Clock for token lifetimes and nonces; defaults to the system clock. */
  readonly clock?: Clock;
  /** Renew the bearer token this long before its expiry (default two minutes). */
  readonly tokenRefreshMarginMs?: number;
  /** Per-request timeout (default 10 s). */
  readonly requestTimeoutMs?: number;
  /** Most concurrent HTTPS connections to the venue (default 8). */
  readonly socketsMax?: number;
  /** A request refused by a rate limit (429) is resent after the named delay at most this often (default 3). */
  readonly rateLimitRetriesMax?: number;
  /** A 429 naming a longer delay than this is handed to the caller instead of waited out (default 10 s). */
  readonly rateLimitWaitMsMax?: number;
}

/** The account login of spec 4.2, as provisioned by an admin. Kept in memory to renew tokens. */
export interface Credentials {
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly passphrase: string;
}

/** JOURNAL_FENCED: the instance answering is no longer the venue's primary (docs/operations.md). */
const FENCED_CODE = ERRORS.JOURNAL_FENCED.code;

/** Token errors after which a fresh login is worth one retry (spec 5 items 5 and 6). */
const RENEWABLE_TOKEN_CODES: ReadonlySet<number> = new Set([1101, 1103, 1104]);

/** Attests the venue, then returns a client whose every connection is pinned to the attested key. */
export async function connectVenue(options: ConnectOptions): Promise<VenueClient> {
  checkSdkLimits();
  const endpoints = [options.url, ...(options.failoverUrls ?? [])].map(originOf);
  const timeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS_DEFAULT;
  let lastError: unknown;
  for (const origin of endpoints) {
    try {
      const attested = await attestVenue(origin, options.trust, timeoutMs);
      return new VenueClient(origin, attested, options, endpoints);
    } catch (error) {
      // With failover endpoints, a dead or unattested one is skipped; alone, its error is the answer.
      if (endpoints.length === 1 || error instanceof TypeError) throw error;
      lastError = error;
    }
  }
  throw lastError;
}

function originOf(url: string): URL {
  const origin = new URL(url);
  if (origin.protocol !== 'https:') {
    throw new TypeError(`url must be https://host:port; received the ${origin.protocol} scheme`);
  }
  if (origin.pathname !== '/' || origin.search !== '' || origin.hash !== '') {
    throw new TypeError('url is an origin only (https://host:port), without a path or query');
  }
  return origin;
}

/** One attested boot of the venue and the pinned connections to it. */
interface Boot {
  readonly origin: URL;
  readonly attested: AttestedVenue;
  readonly agent: SpkiAgent;
}

/** What a client tells its listeners after it moved to another boot of the venue. */
export interface FailoverEvent {
  readonly from: { readonly origin: string; readonly sessionId: string };
  readonly to: { readonly origin: string; readonly sessionId: string };
}

export class VenueClient {
  readonly clock: Clock;
  #boot: Boot;
  readonly #endpoints: readonly URL[];
  readonly #trust: TrustAnchors;
  readonly #failoverWaitMsMax: number;
  readonly #socketsMax: number;
  #failing: Promise<boolean> | null = null;
  readonly #failoverListeners = new Set<(event: FailoverEvent) => void>();
  readonly #timeoutMs: number;
  readonly #marginMs: number;
  readonly #rateLimitRetriesMax: number;
  readonly #rateLimitWaitMsMax: number;
  readonly #streams = new Set<VenueStream>();
  #tokens: TokenKeeper | null = null;

  /** @internal Use connectVenue. */
  constructor(
    origin: URL,
    attested: AttestedVenue,
    options: ConnectOptions,
    endpoints: readonly URL[] = [origin],
  ) {
    this.#endpoints = endpoints;
    this.#trust = options.trust;
    this.#failoverWaitMsMax = options.failoverWaitMsMax ?? FAILOVER_WAIT_MS_MAX_DEFAULT;
    this.#socketsMax = options.socketsMax ?? HTTP_SOCKETS_MAX_DEFAULT;
    this.#boot = this.#bootOf(origin, attested);
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.#timeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS_DEFAULT;
    this.#marginMs = options.tokenRefreshMarginMs ?? TOKEN_REFRESH_MARGIN_MS_DEFAULT;
    this.#rateLimitRetriesMax = options.rateLimitRetriesMax ?? RATE_LIMIT_RETRIES_MAX_DEFAULT;
    this.#rateLimitWaitMsMax = options.rateLimitWaitMsMax ?? RATE_LIMIT_WAIT_MS_MAX_DEFAULT;
  }

  /** The origin of the boot the client talks to now (it changes after a failover). */
  get origin(): URL {
    return this.#boot.origin;
  }

  /** The verified attestation report of the current boot. */
  get report(): AttestationReport {
    return this.#boot.attested.report;
  }

  /** /info as read during the attested connect to the current boot. */
  get info(): InfoResponse {
    return this.#boot.attested.info;
  }

  /** The pin: sha256 of the SPKI every connection to the current boot must present. */
  get spkiSha256(): string {
    return this.#boot.attested.spkiSha256;
  }

  /**
   * Hears each move to another boot (a standby that took over, or the venue restarted). The
   * client logs in again right after; bodies signed for the old session are refused by the new
   * boot (STALE_SESSION), so a Trader reads back what it had in flight. Returns an unsubscribe.
   */
  onFailover(listener: (event: FailoverEvent) => void): () => void {
    this.#failoverListeners.add(listener);
    return () => this.#failoverListeners.delete(listener);
  }

  /**
   * After a connection failure: if the current boot still answers, nothing changes; otherwise the
   * endpoints are attested in turn until one passes (an endpoint whose attestation fails is never
   * used). Resolves true when the client can go on (same or new boot), false when none answered in
   * time. Concurrent callers share one attempt.
   */
  recover(): Promise<boolean> {
    return this.#recover(false);
  }

  /** `deposed`: the current boot answers but was fenced (JOURNAL_FENCED), so it does not count. */
  #recover(deposed: boolean): Promise<boolean> {
    if (this.#endpoints.length < 2) return Promise.resolve(false);
    if (this.#failing !== null) return this.#failing;
    const failed = this.#boot;
    this.#failing = this.#failover(failed, deposed).finally(() => {
      this.#failing = null;
    });
    return this.#failing;
  }

  #bootOf(origin: URL, attested: AttestedVenue): Boot {
    const agent = new SpkiAgent({ pin: attested.spkiSha256, keepAlive: true, socketsMax: this.#socketsMax });
    return { origin, attested, agent };
  }

  async #failover(failed: Boot, deposed: boolean): Promise<boolean> {
    const deadline = Date.now() + this.#failoverWaitMsMax;
    const start = this.#endpoints.findIndex((url) => url.href === failed.origin.href);
    // The next endpoint first: the failed one is the least likely to hold the new primary.
    const order = this.#endpoints.map(
      (_, i) => this.#endpoints[(start + 1 + i) % this.#endpoints.length] as URL,
    );
    while (Date.now() < deadline) {
      for (const origin of order) {
        let attested: AttestedVenue;
        try {
          attested = await attestVenue(origin, this.#trust, Math.min(this.#timeoutMs, 2000));
        } catch {
          continue; // down, still a standby (not listening), or not attested: never used
        }
        if (attested.info.session_id === failed.attested.info.session_id) {
          if (deposed) continue;
          return true;
        }
        this.#boot = this.#bootOf(origin, attested);
        failed.agent.destroy();
        // A token of the old boot is worthless on the new one: log in again, once this failover
        // is over (the login's own exchange must not wait for the failover it is part of).
        setImmediate(() => void this.#tokens?.renew(this.#tokens.held?.token).catch(() => undefined));
        const event: FailoverEvent = {
          from: { origin: failed.origin.origin, sessionId: failed.attested.info.session_id },
          to: { origin: origin.origin, sessionId: attested.info.session_id },
        };
        for (const listener of this.#failoverListeners) listener(event);
        return true;
      }
      await new Promise((resolve) => setTimeout(resolve, FAILOVER_PAUSE_MS));
    }
    return false;
  }

  /** The boot session id to sign into every order and cancel (spec 2.1 `session_id`). */
  get sessionId(): string {
    return this.info.session_id;
  }

  /** The token currently held, if any (its expiry is on the client's clock). */
  get token(): HeldToken | null {
    return this.#tokens?.held ?? null;
  }

  // ---- Public reads (spec 4.4) ----

  async time(): Promise<TimeResponse> {
    return decodeResponse(TimeResponseSchema, await this.#public('GET', '/time'));
  }

  /**
   * GET /info again. A different session id means the venue restarted: its certificate changed
   * too, so in practice the pin refuses the connection first. Either way: connect again.
   */
  async refreshInfo(): Promise<InfoResponse> {
    const info = decodeResponse(InfoResponseSchema, await this.#public('GET', '/info'));
    if (info.session_id !== this.info.session_id) {
      throw new AttestationError(
        'stale_session',
        `the venue now runs boot ${info.session_id}; connect again`,
      );
    }
    return info;
  }

  async instruments(): Promise<Instrument[]> {
    return decodeResponse(InstrumentListResponseSchema, await this.#public('GET', '/instruments'))
      .instruments;
  }

  async instrument(symbol: string): Promise<Instrument> {
    return decodeResponse(
      InstrumentSchema,
      await this.#public('GET', `/instruments/${encodeURIComponent(symbol)}`),
    );
  }

  // ---- Credentials (spec 4.2, 4.6, 5) ----

  /**
   * Logs the account in and keeps its credentials in memory to renew the token before expiry.
   * Returns the first token's account id and expiry.
   */
  async login(credentials: Credentials): Promise<HeldToken> {
    const body = wireJsonText(TokenRequestSchema, {
      api_key: credentials.apiKey,
      api_secret: credentials.apiSecret,
      passphrase: credentials.passphrase,
    });
    const keeper = new TokenKeeper(() => this.#issueToken(body), this.clock, this.#marginMs);
    const held = await keeper.renew();
    this.#tokens = keeper;
    return held;
  }

  /**
   * Like `login`, but starts from a token an earlier process obtained (the CLI's token cache) instead
   * of asking for a new one: no request is sent now. The token is used until its renewal time; a
   * refusal of it (revoked, or the venue restarted) leads to one fresh login with `credentials`.
   */
  resumeLogin(credentials: Credentials, held: HeldToken): HeldToken {
    const body = wireJsonText(TokenRequestSchema, {
      api_key: credentials.apiKey,
      api_secret: credentials.apiSecret,
      passphrase: credentials.passphrase,
    });
    this.#tokens = new TokenKeeper(() => this.#issueToken(body), this.clock, this.#marginMs, held);
    return held;
  }

  /** A token valid for at least the refresh margin, renewed if needed (the stream uses this). */
  async accessToken(): Promise<HeldToken> {
    return this.#keeper().current();
  }

  /** A new token now, unless the one held is already newer than `stale`. */
  async renewToken(stale?: string): Promise<HeldToken> {
    return this.#keeper().renew(stale);
  }

  /** Revokes the held token on the venue (DELETE /auth/token) and forgets the credentials. */
  async logout(): Promise<void> {
    const held = this.#tokens?.held ?? null;
    this.#tokens = null;
    if (held === null) return;
    const exchange = await this.#send({ method: 'DELETE', path: '/auth/token', token: held.token });
    if (exchange.status !== 200) throw apiErrorOf(exchange);
    decodeResponse(RevokeTokenResponseSchema, exchange.text);
  }

  // ---- Orders and the account (spec 4.1, 4.3) ----

  /** POST /orders. Retrying the same signed body after a lost answer is safe (docs/protocol.md 4). */
  async place(order: PlaceOrder): Promise<PlaceResponse> {
    return decodeResponse(
      PlaceResponseSchema,
      await this.#authed('POST', '/orders', wireJsonText(PlaceOrderSchema, order)),
    );
  }

  async cancel(orderId: string, params: CancelParams): Promise<CancelResponse> {
    const text = await this.#authed('DELETE', orderPath(orderId), wireJsonText(CancelParamsSchema, params));
    return decodeResponse(CancelResponseSchema, text);
  }

  async modify(orderId: string, request: ModifyRequest): Promise<ModifyResponse> {
    const text = await this.#authed('PUT', orderPath(orderId), wireJsonText(ModifyRequestSchema, request));
    return decodeResponse(ModifyResponseSchema, text);
  }

  /** GET /orders/{id}: the venue's record of one order, the truth after a stream gap. */
  async order(orderId: string): Promise<OrderRecord> {
    return decodeResponse(OrderRecordSchema, await this.#authed('GET', orderPath(orderId)));
  }

  async account(): Promise<AccountResponse> {
    return decodeResponse(AccountResponseSchema, await this.#authed('GET', '/account'));
  }

  async settings(): Promise<AccountSettings> {
    return decodeResponse(AccountSettingsSchema, await this.#authed('GET', '/account/settings'));
  }

  /** PUT /account/settings replaces the whole object (spec 2.9), so every field is given. */
  async updateSettings(settings: AccountSettings): Promise<AccountSettings> {
    const text = await this.#authed(
      'PUT',
      '/account/settings',
      wireJsonText(AccountSettingsSchema, settings),
    );
    return decodeResponse(AccountSettingsSchema, text);
  }

  // ---- Dead-man timer (ours; docs/api.md "Dead-man timer") ----

  /**
   * Arms or refreshes the account's dead-man timer: unless it is refreshed or disarmed within
   * `timeoutSlots` slots (1 to 4500), the venue cancels every resting order of the account. A bot
   * refreshes it on a heartbeat well inside the timeout (the stream's armDeadMan does the same).
   */
  async armDeadMan(timeoutSlots: bigint): Promise<DeadManStatus> {
    const body = wireJsonText(DeadManArmRequestSchema, { timeout_slots: timeoutSlots });
    return decodeResponse(DeadManStatusSchema, await this.#authed('POST', '/account/dead-man', body));
  }

  async disarmDeadMan(): Promise<DeadManStatus> {
    return decodeResponse(DeadManStatusSchema, await this.#authed('DELETE', '/account/dead-man'));
  }

  async deadMan(): Promise<DeadManStatus> {
    return decodeResponse(DeadManStatusSchema, await this.#authed('GET', '/account/dead-man'));
  }

  /**
   * Reads the record of each order id, in order, for gap recovery (spec 6.1). An id the venue does
   * not know (or that belongs to another account, D31) maps to null. Other errors are thrown.
   */
  async reconcile(orderIds: Iterable<string>): Promise<Map<string, OrderRecord | null>> {
    const ids = [...new Set(orderIds)];
    if (ids.length > RECONCILE_ORDERS_MAX) {
      throw new RangeError(
        `reconcile reads at most ${RECONCILE_ORDERS_MAX} orders per call, received ${ids.length}`,
      );
    }
    const records = new Map<string, OrderRecord | null>();
    for (const id of ids) {
      try {
        records.set(id, await this.order(id));
      } catch (error) {
        if (!(error instanceof VenueApiError) || error.status !== 404) throw error;
        records.set(id, null);
      }
    }
    return records;
  }

  // ---- Note trees and settlement (spec 4.4, 4.5) ----

  /** GET /tree/root: the current root and size of every shard. */
  async treeRoots(): Promise<TreeRoot[]> {
    return decodeResponse(TreeRootsResponseSchema, await this.#public('GET', '/tree/root')).trees;
  }

  /** GET /tree/leaves: a page of raw leaves of one shard from index `from` (at most 1000). */
  async treeLeaves(treeId: number, from: bigint, limit: number = LEAVES_PAGE_MAX): Promise<LeavesResponse> {
    const query = new URLSearchParams({ tree_id: String(treeId), from: String(from), limit: String(limit) });
    return decodeResponse(LeavesResponseSchema, await this.#authed('GET', `/tree/leaves?${query}`));
  }

  /** GET /tree/inclusion: the Merkle path of one note commitment in its shard. */
  async treeInclusion(treeId: number, commitment: string): Promise<InclusionProofResponse> {
    const query = new URLSearchParams({ tree_id: String(treeId), commitment });
    return decodeResponse(
      InclusionProofResponseSchema,
      await this.#authed('GET', `/tree/inclusion?${query}`),
    );
  }

  /** GET /settlement/status: one settlement batch, by transaction id or by market and batch number. */
  async settlementStatus(lookup: SettlementLookup): Promise<SettlementStatusResponse> {
    const query = new URLSearchParams(
      lookup.by === 'tx'
        ? { tx_id: lookup.tx_id }
        : { market_id: lookup.market_id, batch_seq: String(lookup.batch_seq) },
    );
    return decodeResponse(
      SettlementStatusResponseSchema,
      await this.#authed('GET', `/settlement/status?${query}`),
    );
  }

  // ---- Operator routes (spec 4.7; the client must be logged in with an admin account) ----

  /** POST /admin/accounts: the answer carries the new account's secret once; hand it over securely. */
  async createAccount(request: CreateAccountRequest): Promise<CreateAccountResponse> {
    const body = wireJsonText(CreateAccountRequestSchema, request);
    return decodeResponse(CreateAccountResponseSchema, await this.#authed('POST', '/admin/accounts', body));
  }

  /** POST /admin/accounts/{api_key}/disable, /enable or /revoke-tokens (spec 3.3). */
  async changeAccount(
    apiKey: string,
    change: 'disable' | 'enable' | 'revoke-tokens',
  ): Promise<AccountStatusResponse> {
    const path = `/admin/accounts/${encodeURIComponent(apiKey)}/${change}`;
    return decodeResponse(AccountStatusResponseSchema, await this.#authed('POST', path));
  }

  /** GET (inspect), POST (begin) or DELETE (cancel) /admin/drain. */
  async drain(action: 'inspect' | 'begin' | 'cancel' = 'inspect'): Promise<DrainResponse> {
    const method = action === 'inspect' ? 'GET' : action === 'begin' ? 'POST' : 'DELETE';
    return decodeResponse(DrainResponseSchema, await this.#authed(method, '/admin/drain'));
  }

  /** GET /admin/auctions/{market_id}/{batch}: one recent batch auction explained, no owner identities. */
  async auctionExplanation(marketId: string, batch: bigint): Promise<AuctionExplanation> {
    return decodeResponse(
      AuctionExplanationSchema,
      await this.#authed('GET', `/admin/auctions/${encodeURIComponent(marketId)}/${batch}`),
    );
  }

  /** GET /admin/metrics/settlement: per-market aggregates, nothing per order. */
  async settlementMetrics(): Promise<SettlementMetricsResponse> {
    return decodeResponse(
      SettlementMetricsResponseSchema,
      await this.#authed('GET', '/admin/metrics/settlement'),
    );
  }

  // ---- The stream (spec 4.8) ----

  /** Opens the session stream over a pinned connection and logs it in with this client's token. */
  async openStream(options: OpenStreamOptions = {}): Promise<VenueStream> {
    const stream = new VenueStream(this, options);
    this.#streams.add(stream);
    stream.onClosed(() => this.#streams.delete(stream));
    await stream.start();
    return stream;
  }

  /** @internal A fresh pinned agent for one WebSocket (never shared with REST keep-alive sockets). */
  streamAgent(): SpkiAgent {
    return new SpkiAgent({ pin: this.spkiSha256, keepAlive: false, socketsMax: 1 });
  }

  /** Closes streams and idle connections. The client cannot be used afterwards. */
  async close(): Promise<void> {
    await Promise.all([...this.#streams].map((stream) => stream.close()));
    this.#boot.agent.destroy();
  }

  // ---- Plumbing ----

  #keeper(): TokenKeeper {
    if (this.#tokens === null) throw new Error('not logged in: call login(credentials) first');
    return this.#tokens;
  }

  /**
   * One exchange with the current boot. When the connection fails and the client knows other
   * endpoints, it fails over (recover) first; a read is then sent again to the new boot, anything
   * else throws the connection error (the caller decides: a signed body belongs to the old session).
   */
  async #send(request: {
    method: 'GET' | 'POST' | 'PUT' | 'DELETE';
    path: string;
    body?: string;
    token?: string;
  }): Promise<HttpExchange> {
    const boot = this.#boot;
    try {
      const exchange = await httpExchange(boot.agent, boot.origin, {
        ...request,
        timeoutMs: this.#timeoutMs,
      });
      // A primary another instance took over from answers JOURNAL_FENCED to every write: the venue
      // lives on elsewhere. The answer itself stands (that request did nothing).
      if (exchange.status === 503 && this.#endpoints.length > 1 && apiErrorOf(exchange).code === FENCED_CODE)
        void this.#recover(true);
      return exchange;
    } catch (error) {
      if (this.#endpoints.length < 2 || error instanceof VenueApiError) throw error;
      if (!(await this.recover()) || request.method !== 'GET' || this.#boot === boot) throw error;
      const token = request.token === undefined ? {} : { token: (await this.#keeper().current()).token };
      return httpExchange(this.#boot.agent, this.#boot.origin, {
        ...request,
        ...token,
        timeoutMs: this.#timeoutMs,
      });
    }
  }

  async #public(method: 'GET', path: string): Promise<string> {
    const exchange = await this.#send({ method, path });
    if (exchange.status !== 200) throw apiErrorOf(exchange);
    return exchange.text;
  }

  /**
   * A request with the bearer token. A token refused as invalid, expired or revoked is renewed and
   * the request sent once more: a 401 means the venue did nothing with it, so the retry is safe.
   */
  async #authed(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: string): Promise<string> {
    const keeper = this.#keeper();
    const withBody = body === undefined ? {} : { body };
    return this.#withRateLimitRetries(async () => {
      const held = await keeper.current();
      let exchange = await this.#send({ method, path, token: held.token, ...withBody });
      if (exchange.status === 401 && RENEWABLE_TOKEN_CODES.has(apiErrorOf(exchange).code)) {
        const renewed = await keeper.renew(held.token);
        exchange = await this.#send({ method, path, token: renewed.token, ...withBody });
      }
      return exchange;
    });
  }

  /** spec 4.2: a 1402 refusal is thrown at once (see RATE_LIMIT_RETRIES_MAX_DEFAULT); a 429 waits. */
  async #issueToken(body: string): Promise<TokenResponse> {
    const text = await this.#withRateLimitRetries(() =>
      this.#send({ method: 'POST', path: '/auth/token', body }),
    );
    return decodeResponse(TokenResponseSchema, text);
  }

  /**
   * Sends, and on a 429 that names a delay within the cap, sleeps that delay and sends the same
   * request again. A 429 means the venue did nothing with the request, so resending cannot double it.
   */
  async #withRateLimitRetries(send: () => Promise<HttpExchange>): Promise<string> {
    for (let attempt = 0; ; attempt += 1) {
      const exchange = await send();
      if (exchange.status >= 200 && exchange.status <= 299) return exchange.text;
      const error = apiErrorOf(exchange);
      const delayMs = error.retryAfterMs;
      if (
        exchange.status !== 429 ||
        delayMs === undefined ||
        delayMs > this.#rateLimitWaitMsMax ||
        attempt >= this.#rateLimitRetriesMax
      ) {
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

function orderPath(orderId: string): string {
  if (!/^[0-9a-f]{32}$/.test(orderId))
    throw new TypeError(`order id must be 32 lowercase hex characters, received "${orderId.slice(0, 40)}"`);
  return `/orders/${orderId}`;
}
