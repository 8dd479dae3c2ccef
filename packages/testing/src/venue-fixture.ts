import {
  type AssembledVenue,
  type AttestationPlatform,
  assembleVenue,
  type BootIdentity,
  createBootIdentity,
  createEnclave,
  createSimulatedPlatform,
  type Enclave,
  type HttpTransport,
  type MarketListing,
  marketParamsOf,
  type OracleMonitor,
  type ProofChecks,
  type RootSource,
  type Settlement,
  type SignatureChecks,
  type StateDirectory,
  snapshotCode,
  type VenueClock,
  type VenueServer,
} from '@venue/adapters';
import {
  accountAddress,
  type ChainSimulator,
  createChainSimulator,
  venueChainPortsOf,
} from '@venue/chain-sim';
import type { CoreConfig, MarketConfig } from '@venue/core';
import { createMatchProver, createStandInMatchProver, loadNoteHasher, type NoteHasher } from '@venue/notes';
import {
  type CancelParams,
  CancelParamsSchema,
  generateTradingKey,
  type ModifyRequest,
  ModifyRequestSchema,
  type PlaceOrder,
  PlaceOrderSchema,
  signCancel,
  signModify,
  signPlaceOrder,
  type TradingKey,
  wireJsonText,
} from '@venue/protocol';
import { type BarrierProver, barrierProver } from './barrier-prover.ts';
import { type OrderSpec, orderBody, TEST_CORE_CONFIG, TEST_ROOT, testMarket } from './core-fixtures.ts';
import { type CallOptions, type Exchange, httpsCall } from './https-client.ts';
import { ManualClock } from './manual-clock.ts';
import { StreamClient } from './stream-client.ts';

/**
 * A whole venue server on a real HTTPS port with a manual clock, the test core configuration
 * (sha256 note commitments) and two markets, plus helpers to act as its users: an admin, traders
 * with trading keys, and signed order bodies for the boot's session id.
 */

/** Proof checks for a venue that does not settle: every proof passes (test venues never settle). */
export const NON_SETTLING_TEST_PROOFS: ProofChecks = { check: async () => {} };

export function testListing(config: MarketConfig): MarketListing {
  return {
    config,
    oracleMaxAgeSlots: 25n,
    circuitBreaker: {
      band_bps: Number(config.bandBps),
      window_slots: 150n,
      cooldown_slots: 300n,
      max_confidence_bps: 200,
    },
  };
}

export interface TestVenueOptions {
  /** Attach a simulated-platform enclave (attestation routes answer); off by default. */
  enclave?: boolean;
  /** The enclave's platform instead of a fresh simulated one (an Intel TDX one over a fake kernel). */
  platform?: AttestationPlatform;
  /** Core configuration; the default is the test one with sha256 note commitments. */
  core?: CoreConfig;
  /** What GET /info says about proofs; the default is a non-settling stub venue. */
  proofMode?: 'groth16' | 'stub';
  /** Recent roots per shard; the default is TEST_ROOT in every shard. */
  roots?: readonly string[];
  streamAccountBufferBytesMax?: number;
  streamHeartbeatIntervalMs?: number;
  /** Every stream socket's read budget (adapters ReadBudget), before and after login. */
  streamReadBucket?: { capacity: number; refillPerSecond: number };
  /** How long a stream socket may stay unlogged-in (default: the shipped 10 s). */
  streamLoginTimeoutMs?: number;
  proofs?: ProofChecks;
  signatures?: SignatureChecks;
  clock?: ManualClock;
  /** A state directory: the venue journals, snapshots and stores accounts there (restart tests). */
  state?: StateDirectory;
  /**
   * Settle on an in-process chain simulator (docs/settlement.md): an enclave signs settlements, the
   * chain's slots follow the manual clock (advance both with `advanceSlots`), its roots feed the
   * core, and `/tree/*` reads come from it. Needs Poseidon note commitments in `core`.
   */
  settlement?: boolean;
  /** Finality depth of the settling chain (default 4, so tests reach finality in a few slots). */
  finalityDepth?: number;
  /**
   * How settlement legs are proved, with `settlement: true`: 'stand-in' (default; notes
   * match-stand-in.ts, milliseconds a leg) or 'groth16', the real VALID_MATCH circuit (about 1.5 s of
   * CPU a leg), which the chain then verifies for real.
   */
  settlementProofs?: 'groth16' | 'stand-in';
  /**
   * HTTPS connection bounds apart from production's (limits.ts): short timeouts, or a per-address
   * cap that counts loopback, which production leaves uncounted and every test connects from.
   */
  transport?: Partial<HttpTransport>;
  /** The listed markets; the default is SOL-USDC and ETH-USDC. */
  markets?: readonly MarketConfig[];
  /**
   * Gate the markets on signed oracle prices: feed address to its publisher's public key. The
   * assembly builds the monitor (`TestVenue.monitor`); the test hands it updates. Without this the
   * markets have no oracle gate.
   */
  oraclePublishers?: ReadonlyMap<string, string>;
}

export interface Trader {
  readonly accountId: string;
  readonly apiKey: string;
  readonly token: string;
  readonly key: TradingKey;
}

export class TestVenue {
  readonly server: VenueServer;
  readonly identity: BootIdentity;
  readonly clock: ManualClock;
  readonly port: number;
  adminToken = '';
  platform: AttestationPlatform | undefined;
  enclave: Enclave | undefined;
  adminApiKey = '';
  /** The settling chain, with `settlement: true`. */
  chain: ChainSimulator | undefined;
  readonly #assembled: AssembledVenue;
  /** The settlement prover, with `settlement: true`; the venue borrows it, stop() closes it. */
  #prover: BarrierProver | null = null;

  private constructor(assembled: AssembledVenue, identity: BootIdentity, clock: ManualClock, port: number) {
    this.#assembled = assembled;
    this.server = assembled.server;
    this.identity = identity;
    this.clock = clock;
    this.port = port;
  }

  /** The oracle gates, with `oraclePublishers`: hand it updates with `receive(update, slot)`. */
  get monitor(): OracleMonitor | undefined {
    return this.#assembled.monitor ?? undefined;
  }

  /** The pipeline, with `settlement: true`. */
  get settlement(): Settlement | undefined {
    return this.#assembled.settlement ?? undefined;
  }

  static async start(options: TestVenueOptions = {}): Promise<TestVenue> {
    const identity = await createBootIdentity();
    const clock = options.clock ?? new ManualClock();
    const platform = options.platform ?? createSimulatedPlatform();
    const settles = options.settlement === true;
    // The code measured once; the enclave attests it and /evidences serves the same bytes.
    const code = options.enclave === true || settles ? snapshotCode() : undefined;
    const enclave =
      code !== undefined
        ? await createEnclave({ identity, platform, measurement: code.measurement, nowMs: clock.nowMs() })
        : undefined;
    const chain = settles && enclave !== undefined ? await settlingChain(enclave, clock, options) : undefined;
    const core = options.core ?? TEST_CORE_CONFIG;
    const hasher = await loadNoteHasher();
    const prover = chain === undefined || enclave === undefined ? null : matchProverFor(options, hasher);
    const assembled = await assembleVenue(
      {
        clock,
        proofs: { checks: options.proofs ?? NON_SETTLING_TEST_PROOFS },
        ...(options.signatures === undefined ? {} : { signatures: options.signatures }),
        ...(enclave === undefined ? {} : { enclave }),
        // Without a chain, the recent-root window holds the root test notes use.
        roots: chain ?? fixedRoots(options.roots ?? [TEST_ROOT]),
        ...(options.oraclePublishers === undefined
          ? {}
          : { oracle: { publisherKeys: options.oraclePublishers, start: () => ({ stop: () => {} }) } }),
        ...(chain === undefined || enclave === undefined
          ? {}
          : {
              chain: venueChainPortsOf(chain, enclave.settlementSigner, (prover as BarrierProver).lent),
              hasher,
            }),
        front: {
          identity,
          log: { level: 'silent' },
          ...(code === undefined ? {} : { evidences: code }),
          ...(options.transport === undefined ? {} : { transport: options.transport }),
        },
      },
      {
        core,
        markets: (options.markets ?? [testMarket('SOL-USDC'), testMarket('ETH-USDC')]).map(testListing),
        settles,
        proofMode: options.proofMode ?? 'stub',
        ...(options.state === undefined ? {} : { state: options.state }),
        stream: {
          accountBufferBytesMax: options.streamAccountBufferBytesMax,
          heartbeatIntervalMs: options.streamHeartbeatIntervalMs,
          readBucket: options.streamReadBucket,
          loginTimeoutMs: options.streamLoginTimeoutMs,
        },
      },
    );
    const { server } = assembled;
    const { port } = await server.http.listen({ host: '127.0.0.1', port: 0 });
    const venue = new TestVenue(assembled, identity, clock, port);
    venue.platform = platform;
    venue.enclave = enclave;
    venue.chain = chain;
    venue.#prover = prover;
    const admin = await server.provision('admin', 'test operator');
    venue.adminApiKey = admin.api_key;
    venue.adminToken = (await venue.login(admin.api_key, admin.api_secret, admin.passphrase)).access_token;
    return venue;
  }

  call(path: string, options: CallOptions = {}): Promise<Exchange> {
    return httpsCall(this.port, this.identity.certPem, path, options);
  }

  async login(apiKey: string, apiSecret: string, passphrase: string): Promise<{ access_token: string }> {
    const exchange = await this.call('/auth/token', {
      method: 'POST',
      body: JSON.stringify({ api_key: apiKey, api_secret: apiSecret, passphrase }),
    });
    if (exchange.status !== 200) throw new Error(`login failed: ${exchange.status} ${exchange.text}`);
    return JSON.parse(exchange.text) as { access_token: string };
  }

  /** A new trader account created through the admin route, logged in, with a fresh trading key. */
  async trader(label = 'desk'): Promise<Trader & { apiSecret: string; passphrase: string }> {
    const created = await this.call('/admin/accounts', {
      method: 'POST',
      token: this.adminToken,
      body: JSON.stringify({ role: 'trader', label }),
    });
    if (created.status !== 200) throw new Error(`create failed: ${created.status} ${created.text}`);
    const account = JSON.parse(created.text) as {
      account_id: string;
      api_key: string;
      api_secret: string;
      passphrase: string;
    };
    const { access_token } = await this.login(account.api_key, account.api_secret, account.passphrase);
    return {
      accountId: account.account_id,
      apiKey: account.api_key,
      apiSecret: account.api_secret,
      passphrase: account.passphrase,
      token: access_token,
      key: generateTradingKey(),
    };
  }

  /** A place-order body signed by `key` for this boot, valid against the test core's rules. */
  order(spec: OrderSpec, key: TradingKey): PlaceOrder {
    const body = orderBody({ expiry: this.clock.slot() + 500n, ...spec });
    return signPlaceOrder({ ...body, trading_key: key.publicKey, session_id: this.identity.sessionId }, key);
  }

  cancelParams(orderId: string, nonce: bigint, key: TradingKey): CancelParams {
    const body = {
      order_id: orderId,
      trading_key: key.publicKey,
      cancel_nonce: nonce,
      session_id: this.identity.sessionId,
    };
    // The order id travels in the path (REST) or the frame (stream), not in the parameters.
    return {
      trading_key: body.trading_key,
      cancel_nonce: body.cancel_nonce,
      session_id: body.session_id,
      trading_key_signature: signCancel(body, key),
    };
  }

  modifyRequest(oldOrderId: string, nonce: bigint, replacement: PlaceOrder, key: TradingKey): ModifyRequest {
    return signModify(oldOrderId, nonce, replacement, key);
  }

  place(trader: Trader, order: PlaceOrder): Promise<Exchange> {
    return this.call('/orders', {
      method: 'POST',
      token: trader.token,
      body: wireJsonText(PlaceOrderSchema, order),
    });
  }

  cancel(trader: Trader, orderId: string, params: CancelParams): Promise<Exchange> {
    return this.call(`/orders/${orderId}`, {
      method: 'DELETE',
      token: trader.token,
      body: wireJsonText(CancelParamsSchema, params),
    });
  }

  modify(trader: Trader, orderId: string, request: ModifyRequest): Promise<Exchange> {
    return this.call(`/orders/${orderId}`, {
      method: 'PUT',
      token: trader.token,
      body: wireJsonText(ModifyRequestSchema, request),
    });
  }

  /** A stream client connected to this venue, not yet logged in. */
  stream(path?: string): Promise<StreamClient> {
    return StreamClient.connect(this.port, this.identity.certPem, path);
  }

  /** Moves the manual clock and, on a settling venue, the chain one slot at a time. */
  advanceSlots(slots: number): void {
    for (let i = 0; i < slots; i += 1) {
      this.clock.advanceSlots(1n);
      this.chain?.advance(1);
    }
  }

  /**
   * Moves the clock and the chain a slot every `slotMs` of wall time until no match is pending (and
   * at least `slotsMin` slots), so a prover on worker threads gets the time real slots give it.
   * Returns the slots produced.
   */
  async settleAll(options: { slotsMin?: number; slotMs?: number; slotsMax?: number } = {}): Promise<number> {
    const { slotsMin = 1, slotMs = 50, slotsMax = 4_000 } = options;
    let slots = 0;
    while (slots < slotsMin || this.server.engine.core.pendingMatches().length > 0) {
      if (slots >= slotsMax) throw new Error(`matches still pending after ${slotsMax} slots`);
      // A slot passes only once the proofs asked for are back: however slow the machine, a batch is
      // proved within its lock window, as on a venue whose slots are 400 ms and locks 300 slots.
      await this.#prover?.idle();
      this.advanceSlots(1);
      slots += 1;
      await new Promise((resolve) => setTimeout(resolve, slotMs));
    }
    return slots;
  }

  async stop(): Promise<void> {
    await this.#assembled.stop();
    await this.#prover?.close();
  }
}

/** The ports of a venue without a chain: stub proofs, the test root in every window, a silent front. */
export function chainlessPorts(identity: BootIdentity, clock: VenueClock) {
  return {
    clock,
    proofs: { checks: NON_SETTLING_TEST_PROOFS },
    roots: fixedRoots(),
    front: { identity, log: { level: 'silent' as const } },
  };
}

/** A recent-root window that never changes, the same in every shard (a venue without a chain). */
export function fixedRoots(roots: readonly string[] = [TEST_ROOT]): RootSource {
  const window = roots.map((root) => ({ root }));
  return { rootWindow: () => window };
}

/**
 * The chain a settling test venue settles on: genesis governance accepts this boot's enclave, the
 * test markets exist at the core's market ids, and the chain starts at the clock's slot.
 */
/** The real prover behind a barrier (settleAll waits on it), or the stand-in. */
function matchProverFor(options: TestVenueOptions, hasher: NoteHasher): BarrierProver | null {
  return options.settlementProofs === 'groth16'
    ? barrierProver(createMatchProver())
    : barrierProver(createStandInMatchProver(hasher));
}

async function settlingChain(enclave: Enclave, clock: ManualClock, options: TestVenueOptions) {
  const chain = await createChainSimulator({
    shards: TEST_CORE_CONFIG.treeCount,
    finalityDepth: options.finalityDepth ?? 4,
    matchProofs: options.settlementProofs ?? 'stand-in',
    governance: {
      authority: generateTradingKey().publicKey,
      measurement: enclave.measurement,
      settlement_signer: enclave.settlementSigner.publicKey,
    },
  });
  for (const market of [testMarket('SOL-USDC'), testMarket('ETH-USDC')]) {
    listOnChain(chain, market, { price: 1n, confidence: 0n });
  }
  chain.advance(Number(clock.slot()));
  return chain;
}

/**
 * Lists `market` on the chain simulator: its oracle account with a first price, then its market
 * account with the market's own mints, tick, size and scale.
 */
export function listOnChain(
  chain: ChainSimulator,
  market: MarketConfig,
  oracleUpdate: { readonly price: bigint; readonly confidence: bigint },
): void {
  const oracle = accountAddress('oracle', market.symbol);
  chain.updateOracle({ address: oracle, ...oracleUpdate });
  chain.createMarket(marketParamsOf(market, oracle));
}
