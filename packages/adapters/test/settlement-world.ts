/**
 * A small world for the settlement pipeline's tests and benchmark: a chain simulator whose slots
 * are the venue's clock, a venue engine (no HTTP) with the SOL-USDC test market listed on both,
 * the pipeline with its tree feed and telemetry, and wallets that deposit real Poseidon notes and
 * place orders against them. Proofs are not involved: the engine receives verified commands.
 * With `rpc: true` the pipeline reaches the same chain over its real JSON-RPC server, through a
 * fault-injecting proxy (settlement-rpc-proxy.ts), as `venue serve` does; `beat()` drives it.
 */
import { createHash } from 'node:crypto';
import {
  bootEngine,
  ChainRpcClient,
  createSettlementPipeline,
  type FillFrame,
  MatchFacts,
  NoteOpenings,
  type Recovery,
  RemoteSettlementChain,
  RootMirror,
  type Settlement,
  type SettlementChain,
  SettlementMetrics,
  type SettlementWork,
  type StateCompanion,
  type StateDirectory,
  type TreeFrame,
  type VenueClock,
  type VenueEngine,
} from '@venue/adapters';
import {
  type ChainSimulator,
  createChainSimulator,
  type NoteOpeningReveal,
  type RpcServer,
  settlementChainOf,
  spendAuthorityOf,
  startRpcServer,
  treeReads,
} from '@venue/chain-sim';
import {
  type CoreConfig,
  type CoreEvent,
  expandedEvents,
  type MatchEvent,
  type OrderEvent,
} from '@venue/core';
import {
  assetIdOfMint,
  createMatchProver,
  createNote,
  createStandInMatchProver,
  type DerivedNote,
  deriveChangeNote,
  deriveFillNote,
  fieldToHex,
  generateViewingKey,
  loadNoteHasher,
  type MatchProver,
  type NoteHasher,
  type ViewingKeyPair,
} from '@venue/notes';
import { generateTradingKey, type PlaceOrder, type TradingKey } from '@venue/protocol';
import {
  type BarrierProver,
  barrierProver,
  listOnChain,
  placeCommand,
  TEST_CORE_CONFIG,
  TEST_SESSION,
  testListing,
  testMarket,
} from '@venue/testing';
import { type RpcProxy, startRpcProxy } from './settlement-rpc-proxy.ts';

export const MARKET = testMarket('SOL-USDC');
/** Oracle price and the price every test order uses (quote units per base x price scale 1000). */
export const PRICE = 1500n;

/**
 * A chain simulator that lists MARKET at PRICE with `signer` as its settlement signer, ten slots in,
 * and a venue clock on the chain's slots: lock expiries and deadlines mean the same slot on both.
 */
export async function settlingChain(
  signer: TradingKey,
  finalityDepth: number,
  matchProofs: 'groth16' | 'stand-in' = 'stand-in',
): Promise<{ chain: ChainSimulator; clock: VenueClock }> {
  const chain = await createChainSimulator({
    shards: TEST_CORE_CONFIG.treeCount,
    finalityDepth,
    matchProofs,
    governance: {
      authority: generateTradingKey().publicKey,
      measurement: 'ab'.repeat(32),
      settlement_signer: signer.publicKey,
    },
  });
  listOnChain(chain, MARKET, { price: PRICE, confidence: 1n });
  chain.advance(10);
  const clock: VenueClock = {
    nowMs: () => 1_800_000_000_000 + Number(chain.slot) * 400,
    slot: () => chain.slot,
    finalizedSlot: () => chain.finalizedSlot(),
    slotDurationMs: 400,
  };
  return { chain, clock };
}

export interface Wallet {
  readonly accountId: string;
  readonly spendingKey: bigint;
  readonly owner: bigint;
  readonly viewing: ViewingKeyPair;
}

/** A channel message the pipeline or its tree feed handed to the stream. */
export type Published =
  | { readonly channel: 'fills'; readonly message: FillFrame; readonly accountId: string }
  | { readonly channel: 'tree'; readonly message: TreeFrame };

export interface WorldOptions {
  readonly finalityDepth?: number;
  readonly lockDurationSlots?: bigint;
  readonly batchLegsMax?: number;
  /** Journal the engine in a state directory, so `restart()` can boot it again from disk. */
  readonly state?: StateDirectory;
  /** Settle over the chain's JSON-RPC (a real server on a loopback port, behind a proxy). */
  readonly rpc?: boolean;
  /**
   * How legs are proved: the stand-in (default, milliseconds) or the real VALID_MATCH circuit on
   * worker threads, verified for real by the chain. With 'groth16' proofs come back seconds later:
   * drive the world with `settleAll`, which gives the provers wall time between slots.
   */
  readonly proofs?: 'groth16' | 'stand-in';
  /** Prover worker threads with proofs: 'groth16' (default: one per core). */
  readonly proverWorkers?: number;
  /** Nice steps below this thread for the real prover's workers (notes createMatchProver). */
  readonly proverNice?: number;
  /** The pipeline's work per event-loop turn (turn-budget.ts); default: all of a beat at once. */
  readonly turnBudgetMs?: number;
  readonly takeInPerUnit?: number;
  /** Leg hashing and memo sealing on a worker (workers/settlement-pool.ts); default: on this thread. */
  readonly work?: SettlementWork;
  /**
   * Derive, on every match, the notes its owners will hold (for `conserved()`): Poseidon on the
   * world's thread. Default true; a benchmark of the sequencer's thread turns it off.
   */
  readonly foresee?: boolean;
}

/** A world's chain over RPC: the server, the proxy that fails requests on demand, the port. */
export interface RemoteLink {
  readonly server: RpcServer;
  readonly proxy: RpcProxy;
  /** The pipeline's current port (a restart builds a new one, with an empty view). */
  port: RemoteSettlementChain | null;
}

/** Refresh-and-answer rounds per slot: enough for view, lock, view, seal and submit to follow. */
const ROUNDS_PER_SLOT = 6;
/** An RPC the proxy drops must fail fast: the test waits for it. */
const RPC_TIMEOUT_MS = 2_000;

export class SettlementWorld {
  readonly orderEvents: OrderEvent[] = [];
  /** The pipeline's operating lines. */
  readonly logs: string[] = [];
  readonly published: Published[] = [];
  readonly metrics = new SettlementMetrics();
  settlement: Settlement;
  /** The session orders are signed for; a restart starts a new one. */
  session = TEST_SESSION;
  /** What the last boot from the state directory recovered. */
  recovery: Recovery | null = null;
  #mirror: RootMirror;
  #nextId = 0;
  /** Openings of every note the world's owners hold or may receive, by commitment (#foresee). */
  readonly #notes = new Map<string, { ownerCommitment: string; innerHash: string; assetId: bigint }>();
  readonly #foreseen = new Map<string, NoteOpeningReveal>();
  /** One prover for the world's life: a restarted pipeline proves on the same workers. */
  readonly #prover: BarrierProver;
  /** Set with `rpc: true`. */
  remote: RemoteLink | null;

  private constructor(
    readonly chain: ChainSimulator,
    readonly signer: TradingKey,
    readonly hasher: NoteHasher,
    public engine: VenueEngine,
    public openings: NoteOpenings,
    public facts: MatchFacts,
    readonly clock: VenueClock,
    readonly options: WorldOptions,
    remote: { server: RpcServer; proxy: RpcProxy } | null,
  ) {
    this.#listen();
    this.#mirror = new RootMirror(engine, chain, TEST_CORE_CONFIG.treeCount);
    this.#mirror.refresh();
    chain.onEvent((event) => {
      if (event.kind !== 'settlement') this.#mirror.refresh();
    });
    this.remote = remote === null ? null : { ...remote, port: null };
    this.#prover = barrierProver(
      options.proofs === 'groth16'
        ? createMatchProver({
            ...(options.proverWorkers === undefined ? {} : { workers: options.proverWorkers }),
            ...(options.proverNice === undefined ? {} : { nice: options.proverNice }),
          })
        : createStandInMatchProver(hasher),
    );
    this.settlement = this.newPipeline();
  }

  #listen(): void {
    this.engine.onEvents((events: readonly CoreEvent[]) => {
      for (const event of expandedEvents(events)) {
        if (event.type === 'order') this.orderEvents.push(event);
        if (event.type === 'match' && this.options.foresee !== false) this.#foresee(event);
      }
    });
  }

  /**
   * Stops the pipeline and the engine, then boots both again from the state directory with empty
   * memory (new note openings, a new session), as a restarted venue process would, and reconciles.
   */
  async restart(): Promise<void> {
    const state = this.options.state;
    if (state === undefined) throw new Error('restart needs a world created with a state directory');
    this.settlement.stop();
    await this.engine.close();
    this.openings = new NoteOpenings();
    this.facts = new MatchFacts();
    this.session = createHash('sha256').update(this.session).digest('hex');
    const boot = await bootWorldEngine(this.hasher, this.clock, this.options, this.session, [
      this.openings,
      this.facts,
    ]);
    this.engine = boot.engine;
    this.recovery = boot.recovery;
    this.#listen();
    this.#mirror = new RootMirror(this.engine, this.chain, TEST_CORE_CONFIG.treeCount);
    this.#mirror.refresh();
    this.settlement = this.newPipeline();
    this.settlement.reconcile();
  }

  static async create(options: WorldOptions = {}): Promise<SettlementWorld> {
    const hasher = await loadNoteHasher();
    const signer = generateTradingKey();
    const { chain, clock } = await settlingChain(signer, options.finalityDepth ?? 4, options.proofs);
    const openings = new NoteOpenings();
    const facts = new MatchFacts();
    const { engine, recovery } = await bootWorldEngine(hasher, clock, options, TEST_SESSION, [
      openings,
      facts,
    ]);
    engine.record({ type: 'oracle_price', marketId: MARKET.marketId, price: PRICE });
    let remote: { server: RpcServer; proxy: RpcProxy } | null = null;
    if (options.rpc === true) {
      const server = await startRpcServer(chain);
      remote = { server, proxy: await startRpcProxy(server.url) };
    }
    const world = new SettlementWorld(chain, signer, hasher, engine, openings, facts, clock, options, remote);
    world.recovery = recovery;
    return world;
  }

  /** A pipeline over this world's engine and chain (a second one stands for a rebooted venue). */
  newPipeline(): Settlement {
    const port = this.remote === null ? null : this.#remotePort(this.remote.proxy);
    if (this.remote !== null && port !== null) this.remote.port = port;
    return createSettlementPipeline({
      engine: this.engine,
      chain: port ?? settlementChainOf(this.chain, this.signer),
      hasher: this.hasher,
      prover: this.#prover.lent,
      roots: this.chain,
      log: (line) => this.logs.push(line),
      openings: this.openings,
      facts: this.facts,
      clock: this.clock,
      metrics: this.metrics,
      publisher: {
        publishFill: (message, accountId) => this.published.push({ channel: 'fills', message, accountId }),
        publishTree: (message) => this.published.push({ channel: 'tree', message }),
      },
      trees: treeReads(this.chain),
      ...(this.options.batchLegsMax === undefined ? {} : { batchLegsMax: this.options.batchLegsMax }),
      ...(this.options.turnBudgetMs === undefined ? {} : { turnBudgetMs: this.options.turnBudgetMs }),
      ...(this.options.takeInPerUnit === undefined ? {} : { takeInPerUnit: this.options.takeInPerUnit }),
      ...(this.options.work === undefined ? {} : { work: this.options.work }),
    });
  }

  /**
   * Replaces the world's pipeline with one settling on `chain` (a chain in another process, behind
   * its JSON-RPC port), with the world's engine, companions and prover: the settle-loop benchmark.
   */
  settleOn(
    chain: SettlementChain,
    turnBudgetMs?: number,
    offThread?: { readonly work: SettlementWork; readonly prover: MatchProver },
  ): Settlement {
    this.settlement.stop();
    this.settlement = createSettlementPipeline({
      engine: this.engine,
      chain,
      hasher: this.hasher,
      prover: offThread?.prover ?? this.#prover.lent,
      ...(offThread === undefined ? {} : { work: offThread.work }),
      roots: this.chain,
      log: (line) => this.logs.push(line),
      openings: this.openings,
      facts: this.facts,
      clock: this.clock,
      metrics: this.metrics,
      ...(turnBudgetMs === undefined ? {} : { turnBudgetMs }),
    });
    return this.settlement;
  }

  #remotePort(proxy: RpcProxy): RemoteSettlementChain {
    return new RemoteSettlementChain(new ChainRpcClient(proxy.url, RPC_TIMEOUT_MS), this.signer);
  }

  /**
   * RPC mode: produces `slots` slots; after each, the pipeline's view is refreshed and its writes
   * answered a fixed number of rounds, the way a polling venue would over a few polls.
   */
  async beat(slots = 1): Promise<void> {
    const remote = this.remote;
    if (remote === null) throw new Error('beat() drives a world created with rpc: true');
    for (let i = 0; i < slots; i += 1) {
      this.chain.advance(1);
      await this.rounds();
    }
  }

  /** RPC mode: refresh-and-answer rounds without a new slot. */
  async rounds(count = ROUNDS_PER_SLOT): Promise<void> {
    const port = this.remote?.port;
    if (port === undefined || port === null)
      throw new Error('rounds() drives a world created with rpc: true');
    for (let round = 0; round < count; round += 1) {
      this.engine.catchUp();
      await this.engine.settled();
      await port.refresh();
      await port.idle();
    }
  }

  /** Stops the pipeline and, in RPC mode, the proxy and the server. */
  async close(): Promise<void> {
    this.settlement.stop();
    // A journaled engine holds its segment file and a snapshot replica's thread until closed
    // (idempotent: tests that close the engine themselves may still call this).
    await this.engine.close();
    await this.#prover.close();
    if (this.remote !== null) {
      await this.remote.proxy.close();
      await this.remote.server.close();
    }
  }

  wallet(name: string): Wallet {
    const spendingKey = BigInt(`0x${Buffer.from(name).toString('hex')}`) + 0x5eed_0000n;
    return {
      accountId: `acct-${name}`,
      spendingKey,
      owner: this.hasher.ownerCommitment(spendingKey),
      viewing: generateViewingKey(),
    };
  }

  /** Deposits a note of `value` base (ask collateral) or quote (bid collateral) units. */
  deposit(wallet: Wallet, asset: 'base' | 'quote', value: bigint): DerivedNote {
    const mint = asset === 'base' ? MARKET.baseMint : MARKET.quoteMint;
    const note = createNote(this.hasher, {
      ownerCommitment: wallet.owner,
      assetId: assetIdOfMint(mint),
      value,
    });
    this.chain.deposit({
      tree_id: 0,
      mint,
      value,
      owner_commitment: note.hex.ownerCommitment,
      blinding: fieldToHex(note.blinding),
      spend_authority: spendAuthorityOf(wallet.spendingKey).publicKey,
    });
    this.#notes.set(note.hex.commitment, {
      ownerCommitment: note.hex.ownerCommitment,
      innerHash: note.hex.innerHash,
      assetId: note.assetId,
    });
    return note;
  }

  /** A signed-looking order over `note` (the engine takes verified commands; nothing checks it). */
  order(wallet: Wallet, note: DerivedNote, side: 'bid' | 'ask', amount: bigint): PlaceOrder {
    this.#nextId += 1;
    return {
      symbol: MARKET.symbol,
      side,
      order_type: 'limit',
      amount,
      price_limit: PRICE,
      expiry_slot: this.chain.slot + 400n,
      order_id: this.#nextId.toString(16).padStart(32, '0'),
      note_commitment: note.hex.commitment,
      arrival_nonce: BigInt(this.#nextId),
      trading_key: Buffer.from(wallet.accountId.padEnd(32, '-')).toString('hex').slice(0, 64),
      trading_key_signature: '00'.repeat(64),
      owner_commitment: note.hex.ownerCommitment,
      note_inner_hash: note.hex.innerHash,
      merkle_root: this.chain.currentRoot(0).root,
      valid_input_proof: '00'.repeat(256),
      viewing_pubkey: wallet.viewing.publicKey,
      session_id: this.session,
      ...(note.value === (side === 'bid' ? (amount * PRICE) / MARKET.priceScale : amount)
        ? {}
        : { collateral_amount: note.value }),
    };
  }

  /** Places an order as intake would once its proof verified: sequenced (its opening is remembered as it books). */
  async place(wallet: Wallet, order: PlaceOrder): Promise<void> {
    await this.engine.submit(placeCommand(order, this.chain.slot, wallet.accountId));
  }

  /**
   * Produces slots one at a time and waits, after each, until everything the engine applied is
   * durable and its events are out (with a journal, the pipeline hears a match only then).
   */
  async advanceDurably(slots: number): Promise<void> {
    for (let i = 0; i < slots; i += 1) {
      this.chain.advance(1);
      this.engine.catchUp(); // the venue's clock beat: a tick even while no pipeline listens
      await this.engine.settled();
    }
  }

  /** Resolves once the world's prover has loaded its keys (the real one reads them on its workers). */
  waitForProver(): Promise<void> {
    return this.#prover.lent.ready();
  }

  /** Resolves once every proof asked for so far is back and taken by the pipeline. */
  proofsIdle(): Promise<void> {
    return this.#prover.idle();
  }

  /**
   * Produces a slot every `slotMs` of wall time until no match is pending (and at least `slotsMin`
   * slots: the first one clears the book), so provers on worker threads get the time real slots
   * would give them. Returns the slots produced.
   */
  async settleAll(slotMs: number, slotsMin = 1, slotsMax = 100_000): Promise<number> {
    let slots = 0;
    while (slots < slotsMin || this.engine.core.pendingMatches().length > 0) {
      if (slots >= slotsMax) throw new Error(`matches still pending after ${slotsMax} slots`);
      this.chain.advance(1);
      slots += 1;
      await new Promise((resolve) => setTimeout(resolve, slotMs));
    }
    return slots;
  }

  /** Produces slots one at a time (each is a beat of the pipeline). */
  advance(slots: number): void {
    for (let i = 0; i < slots; i += 1) this.chain.advance(1);
  }

  /** The fill messages handed to the stream, with the account each went to. */
  fills(): { readonly message: FillFrame; readonly accountId: string }[] {
    return this.published.flatMap((p) => (p.channel === 'fills' ? [p] : []));
  }

  /** The tree messages handed to the stream. */
  trees(): TreeFrame[] {
    return this.published.flatMap((p) => (p.channel === 'tree' ? [p.message] : []));
  }

  eventsOf(orderId: string): OrderEvent[] {
    return this.orderEvents.filter((event) => event.orderId === orderId);
  }

  kindsOf(orderId: string): string[] {
    return this.eventsOf(orderId).map((event) => event.kind);
  }

  /** Per mint, what the vault holds equals what the unconsumed notes hold. */
  /**
   * Value is conserved on chain: every unconsumed note, deposits and settlement outputs alike, adds
   * up to the vaults. The chain holds settlement outputs as bare commitments, so the owners' openings
   * are shown to its audit, as each owner derives them (#foresee); a note no owner can open fails.
   */
  conserved(): boolean {
    return [...this.chain.audit(this.#foreseen.values()).values()].every(
      (entry) => entry.hidden === 0 && entry.vault === entry.notes,
    );
  }

  /** The two notes a match would create, derived from the owner's note as the owner would. */
  #foresee(event: MatchEvent): void {
    const parent = this.#notes.get(event.noteCommitment);
    if (parent === undefined) return;
    const bid = event.side === 'bid';
    const paid = bid ? event.quoteAmount : event.baseQuantity;
    const spent = { ownerCommitment: parent.ownerCommitment, innerHash: parent.innerHash };
    const received = deriveFillNote(
      this.hasher,
      spent,
      assetIdOfMint(bid ? MARKET.baseMint : MARKET.quoteMint),
      bid ? event.baseQuantity : event.quoteAmount,
    );
    const change = deriveChangeNote(this.hasher, spent, parent.assetId, event.noteValue - paid);
    for (const note of [received, change]) {
      if (note.value === 0n) continue;
      this.#notes.set(note.hex.commitment, {
        ownerCommitment: note.hex.ownerCommitment,
        innerHash: note.hex.innerHash,
        assetId: note.assetId,
      });
      this.#foreseen.set(note.hex.commitment, {
        commitment: note.hex.commitment,
        owner_commitment: note.hex.ownerCommitment,
        note_inner_hash: note.hex.innerHash,
        value: note.value,
      });
    }
  }
}

/** The world's engine: journaled in `options.state` when given (a restart recovers from it), else in memory. */
async function bootWorldEngine(
  hasher: NoteHasher,
  clock: VenueClock,
  options: WorldOptions,
  session: string,
  companions: readonly StateCompanion[],
): Promise<{ engine: VenueEngine; recovery: Recovery | null }> {
  const config: CoreConfig = {
    ...TEST_CORE_CONFIG,
    noteCommitment: hasher.noteCommitment,
    lockDurationSlots: options.lockDurationSlots ?? 20n,
  };
  return bootEngine({
    config,
    clock,
    sessionId: session,
    markets: [testListing(MARKET)],
    state: options.state ?? null,
    companions,
  });
}
