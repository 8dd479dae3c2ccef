import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import type { MarketListing } from '@venue/adapters';
import {
  CONNECTIONS_MAX,
  CONNECTIONS_PER_ADDRESS_MAX,
  isLoopbackHost,
  LOG_LEVELS,
  type LogLevel,
  SETTLEMENT_BUFFER_SLOTS,
  STREAM_CONNECTIONS_PER_ACCOUNT_MAX,
  TSM_REPORT_ROOT_DEFAULT,
} from '@venue/adapters';
import { ACCOUNT_OPEN_ORDERS_MAX, ORDER_LIFETIME_SLOTS_MAX, U64_MAX } from '@venue/protocol';

/**
 * The configuration file of `venue serve` (docs/operations.md "venue serve" documents every key;
 * config/venue.example.json is a complete example). It is read once at start and checked whole
 * before anything is opened: a mistake stops the venue with the key's path and what would be
 * accepted, instead of a venue that half starts. Unknown keys are refused too, since a misspelt
 * optional key would otherwise be ignored in silence. Relative paths are relative to the file.
 */

/** A configuration file larger than this is not a configuration file. */
export const SERVE_CONFIG_BYTES_MAX = 256 * 1024;
/** Most markets one venue process lists (each has its own book and feed). */
export const SERVE_MARKETS_MAX = 64;
/** Shortest and longest poll interval of the chain link and the oracle feeds. */
export const POLL_MS_MIN = 50;
export const POLL_MS_MAX = 60_000;

export interface ServeConfig {
  readonly file: string;
  readonly listen: { readonly host: string; readonly port: number };
  /** Journal, snapshots and accounts, sealed (docs/durability.md). */
  readonly stateDir: string;
  /** This boot's certificate and the platform root clients trust: public files only. */
  readonly publicDir: string;
  /**
   * The attestation platform (docs/enclave.md). `simulated` (the default kind for development) keeps
   * its root key and stand-in fused secret in `secretFile`. `intel-tdx` asks the kernel's configfs
   * TSM report interface under `configfsRoot` for quotes and, until a key broker exists, derives the
   * sealing key from the same kind of secret file; `rootCertificateFile` replaces Intel's root only
   * for test deployments whose quotes chain to a test PKI.
   */
  readonly platform:
    | { readonly kind: 'simulated'; readonly secretFile: string }
    | {
        readonly kind: 'intel-tdx';
        readonly secretFile: string;
        readonly configfsRoot: string;
        readonly rootCertificateFile: string | null;
      };
  /** Where the first admin's credentials are written on the first boot (0600, never overwritten). */
  readonly adminCredentialsFile: string;
  readonly proofs: 'groth16' | 'stub';
  readonly chain: {
    readonly rpcUrl: string;
    readonly pollMs: number;
    readonly slotMs: number;
    readonly treeCount: number;
    /** Settle matches on this chain (docs/settlement.md section 9); false leaves them pending. */
    readonly settle: boolean;
    /**
     * Trade and settle on a state directory the chain shows to be older (or a chain behind it): the
     * operator accepts the loss after a disaster (docs/operations.md). Off: the venue pauses.
     */
    readonly acceptStateMismatch: boolean;
  };
  readonly oracle: {
    readonly pollMs: number;
    readonly feeds: readonly { readonly feed: string; readonly publisherKey: string; readonly url: string }[];
  };
  readonly markets: readonly MarketListing[];
  readonly limits: {
    readonly settlementBufferSlots: bigint;
    readonly orderLifetimeSlotsMax: bigint;
    readonly lockDurationSlots: bigint;
    readonly retentionSlots: bigint;
    readonly accountOpenOrdersMax: number;
    readonly rootWindowMax: number;
    /**
     * Connections one remote address may hold (loopback uncounted). Behind a proxy that hides client
     * addresses every client is one address: raise it to CONNECTIONS_MAX and cap at the proxy.
     */
    readonly connectionsPerAddressMax: number;
  };
  readonly logLevel: LogLevel;
  /** A loopback address where a scraper reads the metrics without a token; null: none. */
  readonly metricsListen: { readonly host: string; readonly port: number } | null;
  /** Where the journal lives: `file` (the state directory, the default) or a JetStream cluster. */
  readonly journal: JournalConfig;
}

export type JournalConfig =
  | { readonly kind: 'file' }
  | {
      readonly kind: 'jetstream';
      readonly servers: readonly string[];
      readonly stream: string;
      readonly replicas: 1 | 3 | 5;
      readonly credentialsFile?: string;
      /** `primary` appends; `standby` (issue 22's hot standby) follows and takes over. */
      readonly role: 'primary' | 'standby';
      readonly lease: { readonly ttlMs: number; readonly renewEveryMs: number };
    };

/** A configuration mistake: `key` is the path in the file (markets[1].tick_size), `fix` says what to do. */
export class ServeConfigError extends Error {
  constructor(
    readonly file: string,
    readonly key: string,
    readonly fix: string,
  ) {
    super(`${file}: ${key}: ${fix}`);
    this.name = 'ServeConfigError';
  }
}

export function loadServeConfig(path: string): ServeConfig {
  const file = resolve(path);
  let text: string;
  try {
    if (statSync(file).size > SERVE_CONFIG_BYTES_MAX) {
      throw new ServeConfigError(
        file,
        '(file)',
        `larger than ${SERVE_CONFIG_BYTES_MAX} bytes; is it the right file?`,
      );
    }
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ServeConfigError) throw error;
    throw new ServeConfigError(file, '(file)', `cannot be read (${(error as Error).message})`);
  }
  return parseServeConfig(text, file);
}

export function parseServeConfig(text: string, file: string): ServeConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ServeConfigError(file, '(file)', `is not JSON (${(error as Error).message})`);
  }
  const root = new Reader(file, '', json);
  const base = dirname(file);
  const path = (reader: Reader, key: string, fallback?: string) => {
    const value = reader.string(key, fallback);
    return isAbsolute(value) ? value : resolve(base, value);
  };
  root.only([
    'listen',
    'state_dir',
    'public_dir',
    'platform',
    'admin_credentials_file',
    'proofs',
    'chain',
    'oracle',
    'markets',
    'limits',
    'log_level',
    'metrics_listen',
    'journal',
  ]);
  const listen = root.object('listen');
  listen.only(['host', 'port']);
  const platform = root.object('platform');
  const platformKind = platform.oneOf('kind', ['simulated', 'intel-tdx'] as const);
  platform.only(
    platformKind === 'simulated'
      ? ['kind', 'secret_file']
      : ['kind', 'secret_file', 'configfs_root', 'root_certificate_file'],
  );
  const chain = root.object('chain');
  chain.only(['rpc_url', 'poll_ms', 'slot_ms', 'tree_count', 'settle', 'accept_state_mismatch']);
  const oracle = root.object('oracle');
  oracle.only(['poll_ms', 'feeds']);

  const stateDir = path(root, 'state_dir');
  const config: ServeConfig = {
    file,
    listen: { host: listen.string('host', '127.0.0.1'), port: listen.integer('port', 0, 65_535) },
    stateDir,
    publicDir: path(root, 'public_dir'),
    platform:
      platformKind === 'simulated'
        ? { kind: 'simulated', secretFile: path(platform, 'secret_file') }
        : {
            kind: 'intel-tdx',
            secretFile: path(platform, 'secret_file'),
            configfsRoot: path(platform, 'configfs_root', TSM_REPORT_ROOT_DEFAULT),
            rootCertificateFile: platform.has('root_certificate_file')
              ? path(platform, 'root_certificate_file')
              : null,
          },
    adminCredentialsFile: path(root, 'admin_credentials_file'),
    proofs: root.oneOf('proofs', ['groth16', 'stub'] as const),
    chain: {
      rpcUrl: chain.url('rpc_url', ['http:', 'https:']),
      pollMs: chain.integer('poll_ms', POLL_MS_MIN, POLL_MS_MAX, 200),
      slotMs: chain.integer('slot_ms', 10, 60_000, 400),
      treeCount: chain.integer('tree_count', 1, 256, 4),
      settle: chain.boolean('settle', true),
      acceptStateMismatch: chain.boolean('accept_state_mismatch', false),
    },
    oracle: {
      pollMs: oracle.integer('poll_ms', POLL_MS_MIN, POLL_MS_MAX, 400),
      feeds: oracle.array('feeds', 1, SERVE_MARKETS_MAX).map((feed) => {
        feed.only(['feed', 'publisher_key', 'url']);
        return {
          feed: feed.base58('feed'),
          publisherKey: feed.hex('publisher_key', 32),
          url: feed.url('url', ['http:', 'https:']),
        };
      }),
    },
    markets: root.array('markets', 1, SERVE_MARKETS_MAX).map(marketOf),
    limits: limitsOf(root.optionalObject('limits')),
    logLevel: root.oneOf('log_level', LOG_LEVELS, 'info'),
    metricsListen: metricsListenOf(root),
    journal: journalOf(root.optionalObject('journal'), (reader, key) => path(reader, key)),
  };
  checkRelations(config, root);
  return config;
}

/** `metrics_listen`: loopback only, since that listener asks for no token. */
function metricsListenOf(root: Reader): ServeConfig['metricsListen'] {
  if (!root.has('metrics_listen')) return null;
  const listen = root.object('metrics_listen');
  listen.only(['host', 'port']);
  const host = listen.string('host', '127.0.0.1');
  if (!isLoopbackHost(host)) {
    listen.fail(
      'metrics_listen.host',
      `must be a loopback address (127.0.0.1, ::1, localhost), since the metrics need no token there; received "${host}"`,
    );
  }
  return { host, port: listen.integer('port', 0, 65_535) };
}

function marketOf(market: Reader): MarketListing {
  market.only([
    'symbol',
    'market_id',
    'base_mint',
    'quote_mint',
    'tick_size',
    'min_size',
    'price_scale',
    'oracle_feed',
    'band_bps',
    'batch_interval_slots',
    'oracle_max_age_slots',
    'circuit_breaker',
  ]);
  const symbol = market.string('symbol');
  if (!/^[A-Z0-9]{1,12}-[A-Z0-9]{1,12}$/.test(symbol)) {
    market.fail('symbol', `expected BASE-QUOTE in capitals and digits (e.g. SOL-USDC), received "${symbol}"`);
  }
  const breaker = market.object('circuit_breaker');
  breaker.only(['band_bps', 'window_slots', 'cooldown_slots', 'max_confidence_bps']);
  return {
    config: {
      symbol,
      marketId: market.base58('market_id'),
      baseMint: market.base58('base_mint'),
      quoteMint: market.base58('quote_mint'),
      tickSize: market.u64('tick_size', 1n),
      minSize: market.u64('min_size', 1n),
      priceScale: market.u64('price_scale', 1n),
      oracleFeed: market.base58('oracle_feed'),
      bandBps: BigInt(market.integer('band_bps', 0, 10_000)),
      batchIntervalSlots: market.u64('batch_interval_slots', 1n, 1n),
    },
    oracleMaxAgeSlots: market.u64('oracle_max_age_slots', 1n),
    circuitBreaker: {
      band_bps: breaker.integer('band_bps', 0, 10_000),
      window_slots: breaker.u64('window_slots', 1n),
      cooldown_slots: breaker.u64('cooldown_slots', 0n),
      max_confidence_bps: breaker.integer('max_confidence_bps', 0, 10_000),
    },
  };
}

function journalOf(journal: Reader, path: (reader: Reader, key: string) => string): JournalConfig {
  const kind = journal.oneOf('kind', ['file', 'jetstream'] as const, 'file');
  if (kind === 'file') {
    journal.only(['kind']);
    return { kind };
  }
  journal.only(['kind', 'servers', 'stream', 'replicas', 'credentials_file', 'role', 'lease']);
  const servers = journal.stringArray('servers', 1, 16).map((server, i) => {
    let url: URL | null = null;
    try {
      url = new URL(server);
    } catch {
      // reported below
    }
    if (url === null || !['nats:', 'tls:'].includes(url.protocol) || url.port === '') {
      journal.fail(
        `journal.servers[${i}]`,
        `expected a URL such as nats://10.0.0.1:4222; received "${server}"`,
      );
    }
    return server;
  });
  const stream = journal.string('stream', 'venue');
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(stream)) {
    journal.fail('journal.stream', `letters, digits, - and _ only (at most 64); received "${stream}"`);
  }
  const replicas = journal.integer('replicas', 1, 5, 3);
  if (replicas !== 1 && replicas !== 3 && replicas !== 5) {
    journal.fail(
      'journal.replicas',
      `expected 1, 3 or 5 (a majority must be able to acknowledge); received ${replicas}`,
    );
  }
  const role = journal.oneOf('role', ['primary', 'standby'] as const, 'primary');
  const lease = journal.optionalObject('lease');
  lease.only(['ttl_ms', 'renew_ms']);
  const ttlMs = lease.integer('ttl_ms', 500, 60_000, 3_000);
  const renewEveryMs = lease.integer('renew_ms', 100, 30_000, 1_000);
  if (renewEveryMs * 2 > ttlMs) {
    journal.fail(
      'journal.lease.renew_ms',
      `must be at most half of journal.lease.ttl_ms (${ttlMs}), so one late renewal does not lose the lease`,
    );
  }
  const credentials = journal.has('credentials_file') ? path(journal, 'credentials_file') : undefined;
  return {
    kind,
    servers,
    stream,
    replicas,
    ...(credentials === undefined ? {} : { credentialsFile: credentials }),
    role,
    lease: { ttlMs, renewEveryMs },
  };
}

function limitsOf(limits: Reader): ServeConfig['limits'] {
  limits.only([
    'settlement_buffer_slots',
    'order_lifetime_slots_max',
    'lock_duration_slots',
    'retention_slots',
    'account_open_orders_max',
    'root_window_max',
    'connections_per_address_max',
  ]);
  return {
    settlementBufferSlots: limits.u64('settlement_buffer_slots', 1n, SETTLEMENT_BUFFER_SLOTS),
    orderLifetimeSlotsMax: limits.u64('order_lifetime_slots_max', 2n, ORDER_LIFETIME_SLOTS_MAX),
    lockDurationSlots: limits.u64('lock_duration_slots', 1n, 300n),
    retentionSlots: limits.u64('retention_slots', 1n, 9_000n),
    accountOpenOrdersMax: limits.integer(
      'account_open_orders_max',
      1,
      ACCOUNT_OPEN_ORDERS_MAX,
      ACCOUNT_OPEN_ORDERS_MAX,
    ),
    rootWindowMax: limits.integer('root_window_max', 1, 1_024, 64),
    // Above an account's stream sockets, so one host can always hold them and still call REST.
    connectionsPerAddressMax: limits.integer(
      'connections_per_address_max',
      STREAM_CONNECTIONS_PER_ACCOUNT_MAX + 1,
      CONNECTIONS_MAX,
      CONNECTIONS_PER_ADDRESS_MAX,
    ),
  };
}

/** Rules between keys: each failure names the key to change. */
function checkRelations(config: ServeConfig, root: Reader): void {
  const { limits } = config;
  // Decisions section 4: a stub proof proves nothing, so a venue that settles accepts none.
  if (config.proofs === 'stub' && config.chain.settle) {
    root.fail(
      'proofs',
      'stub proofs are refused on a venue that settles; use groth16, or set chain.settle to false',
    );
  }
  if (limits.orderLifetimeSlotsMax > ORDER_LIFETIME_SLOTS_MAX) {
    root.fail(
      'limits.order_lifetime_slots_max',
      `at most ${ORDER_LIFETIME_SLOTS_MAX} (the protocol maximum, spec 8)`,
    );
  }
  if (limits.orderLifetimeSlotsMax <= limits.settlementBufferSlots) {
    root.fail(
      'limits.order_lifetime_slots_max',
      `must exceed limits.settlement_buffer_slots (${limits.settlementBufferSlots}), or no expiry_slot is valid`,
    );
  }
  const symbols = new Set<string>();
  const feeds = new Set(config.oracle.feeds.map((f) => f.feed));
  config.markets.forEach((listing, i) => {
    const { symbol, oracleFeed } = listing.config;
    if (symbols.has(symbol))
      root.fail(`markets[${i}].symbol`, `${symbol} is listed twice; symbols are unique`);
    symbols.add(symbol);
    if (!feeds.has(oracleFeed)) {
      root.fail(
        `markets[${i}].oracle_feed`,
        `${oracleFeed} has no entry in oracle.feeds; add its publisher key and url`,
      );
    }
  });
  const seen = new Set<string>();
  config.oracle.feeds.forEach((feed, i) => {
    if (seen.has(feed.feed)) root.fail(`oracle.feeds[${i}].feed`, `${feed.feed} is listed twice`);
    seen.add(feed.feed);
  });
  // The state directory is sealed and must never hold a secret in clear, nor the sealing secret.
  for (const [key, file] of [
    ['platform.secret_file', config.platform.secretFile],
    ['admin_credentials_file', config.adminCredentialsFile],
  ] as const) {
    if (isInside(file, config.stateDir)) {
      root.fail(
        key,
        `must be outside state_dir (${config.stateDir}): the state directory holds sealed data only`,
      );
    }
  }
  if (isInside(config.publicDir, config.stateDir) || isInside(config.stateDir, config.publicDir)) {
    root.fail(
      'public_dir',
      'must be apart from state_dir (public files are served to clients, state is sealed)',
    );
  }
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** Reads one JSON object, remembering the path so that every error names its key. */
class Reader {
  constructor(
    readonly file: string,
    readonly path: string,
    readonly value: unknown,
  ) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ServeConfigError(file, path === '' ? '(file)' : path, 'expected a JSON object');
    }
  }

  fail(key: string, fix: string): never {
    throw new ServeConfigError(this.file, key, fix);
  }

  #key(key: string): string {
    return this.path === '' ? key : `${this.path}.${key}`;
  }

  #get(key: string): unknown {
    return (this.value as Record<string, unknown>)[key];
  }

  only(keys: readonly string[]): void {
    for (const key of Object.keys(this.value as object)) {
      if (!keys.includes(key)) this.fail(this.#key(key), `unknown key; expected one of ${keys.join(', ')}`);
    }
  }

  object(key: string): Reader {
    const value = this.#get(key);
    if (value === undefined) this.fail(this.#key(key), 'missing; expected an object');
    return new Reader(this.file, this.#key(key), value);
  }

  has(key: string): boolean {
    return this.#get(key) !== undefined;
  }

  optionalObject(key: string): Reader {
    return new Reader(this.file, this.#key(key), this.#get(key) ?? {});
  }

  array(key: string, min: number, max: number): Reader[] {
    const value = this.#get(key);
    if (!Array.isArray(value) || value.length < min || value.length > max) {
      this.fail(this.#key(key), `expected an array of ${min} to ${max} objects`);
    }
    return value.map((item, i) => new Reader(this.file, `${this.#key(key)}[${i}]`, item));
  }

  stringArray(key: string, min: number, max: number): string[] {
    const value = this.#get(key);
    if (
      !Array.isArray(value) ||
      value.length < min ||
      value.length > max ||
      !value.every((item) => typeof item === 'string' && item !== '')
    ) {
      this.fail(this.#key(key), `expected an array of ${min} to ${max} non-empty strings`);
    }
    return value as string[];
  }

  string(key: string, fallback?: string): string {
    const value = this.#get(key) ?? fallback;
    if (typeof value !== 'string' || value === '')
      this.fail(this.#key(key), 'missing; expected a non-empty string');
    return value;
  }

  boolean(key: string, fallback: boolean): boolean {
    const value = this.#get(key) ?? fallback;
    if (typeof value !== 'boolean')
      this.fail(this.#key(key), `expected true or false; received ${JSON.stringify(value)}`);
    return value;
  }

  oneOf<T extends string>(key: string, choices: readonly T[], fallback?: T): T {
    const value = this.#get(key) ?? fallback;
    if (typeof value !== 'string' || !choices.includes(value as T)) {
      this.fail(this.#key(key), `expected one of ${choices.join(', ')}; received ${JSON.stringify(value)}`);
    }
    return value as T;
  }

  integer(key: string, min: number, max: number, fallback?: number): number {
    const value = this.#get(key) ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(
        this.#key(key),
        `expected an integer from ${min} to ${max}; received ${JSON.stringify(value)}`,
      );
    }
    return value;
  }

  /** A u64 as a JSON integer (exact only up to 2^53) or a decimal string (any u64). */
  u64(key: string, min: bigint, fallback?: bigint): bigint {
    const raw = this.#get(key);
    let value: bigint | undefined = fallback;
    if (typeof raw === 'number' && Number.isSafeInteger(raw)) value = BigInt(raw);
    else if (typeof raw === 'string' && /^(0|[1-9][0-9]*)$/.test(raw)) value = BigInt(raw);
    else if (raw !== undefined) value = undefined;
    if (value === undefined || value < min || value > U64_MAX) {
      this.fail(
        this.#key(key),
        `expected an integer from ${min} to 2^64-1 (a decimal string above 2^53); received ${JSON.stringify(raw)}`,
      );
    }
    return value;
  }

  base58(key: string): string {
    const value = this.string(key);
    if (!BASE58.test(value))
      this.fail(this.#key(key), `expected a base58 account address; received "${value}"`);
    return value;
  }

  hex(key: string, bytes: number): string {
    const value = this.string(key);
    if (!new RegExp(`^[0-9a-f]{${bytes * 2}}$`).test(value)) {
      this.fail(this.#key(key), `expected ${bytes * 2} lowercase hex characters (${bytes} bytes)`);
    }
    return value;
  }

  url(key: string, protocols: readonly string[]): string {
    const value = this.string(key);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return this.fail(
        this.#key(key),
        `expected a URL such as ${protocols[0]}//127.0.0.1:8899; received "${value}"`,
      );
    }
    if (!protocols.includes(url.protocol)) {
      this.fail(this.#key(key), `expected a ${protocols.join(' or ')} URL; received "${value}"`);
    }
    return value;
  }
}
