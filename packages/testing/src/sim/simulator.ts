import { createHash } from 'node:crypto';
import type { VenueClock } from '@venue/adapters';
import {
  ChainSimulator,
  loadMatchProofCheck,
  type MatchProofCheck,
  type NoteOpeningReveal,
} from '@venue/chain-sim';
import {
  type CoreConfig,
  type CoreEvent,
  expandedEvents,
  type MarketConfig,
  type MatchEvent,
} from '@venue/core';
import {
  assetIdOfMint,
  createMatchProver,
  createNote,
  createStandInMatchProver,
  deriveChangeNote,
  deriveFillNote,
  fieldToHex,
  type NoteHasher,
} from '@venue/notes';
import {
  errorNameOf,
  SETTLEMENT_FAILURE_REASONS,
  type TradingKey,
  tradingKeyFromSeed,
} from '@venue/protocol';
import { type BarrierProver, barrierProver } from '../barrier-prover.ts';
import { TEST_CORE_CONFIG, testMarket } from '../core-fixtures.ts';
import { listOnChain } from '../venue-fixture.ts';
import { drawFaultRates, type FaultRates, SLOT_STALL_TICKS_MAX } from './faults.ts';
import { eventText, type ReplayedRecord, replayJournal } from './journal-audit.ts';
import { OrderLedger, SimInvariantError } from './order-ledger.ts';
import { SimRandom } from './random.ts';
import { SimClient, type SimNote, type SimOrder, seededBytes } from './sim-client.ts';
import { SimDisk } from './sim-disk.ts';
import { type SimHasherKind, simHasher } from './sim-hasher.ts';
import { type Frame, SimSocket } from './sim-socket.ts';
import { SimVenue } from './sim-venue.ts';

/**
 * The deterministic simulator (issue 11 item 1; docs/simulation.md). One seed drives the real venue
 * (sim-venue.ts: sequencer, FileJournal with group commit on a simulated disk, settlement pipeline,
 * stream sessions, tokens, intake with real signatures) against the chain simulator, with simulated
 * bots that deposit notes, log in, place, cancel and modify through stream frames, and faults at
 * the seed's own rates (faults.ts). Time is the chain's slot plus simulated wall-clock jumps; the
 * disk completes fdatasyncs when the seed says; nothing reads a wall clock or draws outside the
 * seed, so a failing seed fails the same way every run.
 *
 * After every step: the core's validateInternalState(); the order ledger (one state per order, spec
 * 3.1 transitions, terminal last, no note behind two live orders, events only to the owner); value
 * conserved per mint on chain; every frame a connection received in seq order without a gap and
 * about its own account's orders only; auth refusals exactly when the client's token is dead.
 * At every crash: the recovered core equals a replay of the whole journal from scratch, and every
 * event the venue let out (so every acknowledgement) is in it. Every REPLAY_CHECK_STEPS steps and
 * at the end, with the disk caught up: replaying the journal from scratch gives the live stateHash
 * and exactly the events the venue let out.
 */

export const REPLAY_CHECK_STEPS = 250;
/** Share of steps in which a logged-in client works its dead-man timer. */
const DEAD_MAN_STEP_RATE = 0.04;
const DEAD_MAN_EARLIER_REFUSALS: ReadonlySet<string> = new Set([
  'TRADING_RATE_LIMITED',
  'JOURNAL_UNAVAILABLE',
  'SHUTTING_DOWN',
  'VENUE_BUSY',
]);
const ACCOUNTS = 4;
/** Worker threads of the real prover on the circuit seed. */
const PROVER_WORKERS = 2;
/**
 * Two markets with their own mints, oracle, gates and settlement lane: a note's mint names its
 * market and side, so orders, batches and faults interleave across the markets in one journal.
 */
const MARKETS: readonly MarketConfig[] = [testMarket('SOL-USDC'), testMarket('ETH-USDC')];
/** A market's price moves inside this band (the oracle band of the core stays around it). */
const PRICE_START = 1000n;
const PRICE_MIN = 900n;
const PRICE_MAX = 1100n;
const FINALITY_DEPTH = 4;
const TREES = TEST_CORE_CONFIG.treeCount;
const WALL_START_MS = 1_800_000_000_000;
const SLOT_MS = 400;
/**
 * What a cross-market modify may be refused with: the market rule itself, or what the venue checks
 * before it (the old order already ended, a journal that is down, a replacement note the chain has
 * already consumed: intake checks the note with its proof, before the core sees the modify).
 */
const CROSS_MARKET_REFUSALS: ReadonlySet<string> = new Set([
  'CROSS_MARKET_MODIFY',
  'NOTE_CONSUMED',
  'ORDER_NOT_FOUND',
  'JOURNAL_UNAVAILABLE',
]);
/** A request refused for its token, as a session reports it (spec 4.8, section 7). */
const AUTH_REFUSALS: ReadonlySet<string> = new Set([
  'NOT_LOGGED_IN',
  'TOKEN_EXPIRED',
  'TOKEN_REVOKED',
  'INVALID_TOKEN',
]);

export interface SimOptions {
  readonly seed: number;
  readonly steps: number;
  /** Note hash: the cheap sha256 stand-in (default) or the real Poseidon. */
  readonly hasher?: SimHasherKind;
  /**
   * Settlement proofs: the stand-in (default; notes match-stand-in.ts) or the real VALID_MATCH
   * circuit, which the chain then verifies with the pinned key. The circuit needs the Poseidon hash,
   * and waits for every proof before each slot so the seed's batches keep their order.
   */
  readonly proofs?: 'stand-in' | 'groth16';
}

export interface SimReport {
  readonly seed: number;
  readonly steps: number;
  readonly hasher: SimHasherKind;
  /** Journal records written (all boots). */
  readonly records: number;
  readonly requests: number;
  readonly acks: number;
  readonly refused: number;
  readonly orders: number;
  readonly events: number;
  readonly frames: number;
  readonly crashes: number;
  /** Batches that landed on the chain, per market symbol. */
  readonly settlementBatches: Readonly<Record<string, number>>;
  readonly faults: Readonly<Record<string, number>>;
  readonly refusals: Readonly<Record<string, number>>;
  /** Dead-man timer steps: dead_man_arm, _disarm, _fired (deadlines checked), _refused_<code>. */
  readonly deadMan: Readonly<Record<string, number>>;
  readonly rates: FaultRates;
  readonly stateHash: string;
  readonly chainHash: string;
}

/** A failing run: the message names the seed and how to reproduce it. */
export class SimFailure extends Error {
  constructor(
    readonly seed: number,
    readonly step: number,
    cause: unknown,
    steps: number,
    hasher: SimHasherKind = 'sha256',
    proofs: 'stand-in' | 'groth16' = 'stand-in',
  ) {
    const flag = proofs === 'groth16' ? ' --circuit' : hasher === 'poseidon' ? ' --poseidon' : '';
    super(
      `seed ${seed} failed at step ${step}: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}\n` +
        `  reproduce: npm run sim -- --seed ${seed} --steps ${steps}${flag}`,
      { cause },
    );
    this.name = 'SimFailure';
  }
}

/** What a client expects of the reply to one of its requests. */
type Expectation =
  | { readonly kind: 'place' | 'modify'; readonly orderId: string; readonly tokenAlive: boolean }
  | { readonly kind: 'cancel' | 'replay'; readonly tokenAlive: boolean }
  /** A modify whose replacement names the other market: never accepted (spec 4.1 rule 4). */
  | { readonly kind: 'cross_market'; readonly tokenAlive: boolean };

/** Lets every promise chain that can move without the disk or a crypto thread run to its end. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class Simulator {
  readonly #random: SimRandom;
  /**
   * Draws of the dead-man timer's steps, from their own stream so that the main stream (and with it
   * every fault rate a seed draws) is the one the seed drew before the timer existed.
   */
  readonly #deadManRandom: SimRandom;
  /** Account -> deadline slot of its armed dead-man timer, as the venue's replies stated it. */
  readonly #deadlines = new Map<string, bigint>();
  readonly #deadManCounts: Record<string, number> = {};
  readonly #rates: FaultRates;
  readonly #hasherKind: SimHasherKind;
  readonly #hasher: NoteHasher;
  readonly #chain: ChainSimulator;
  readonly #signer: TradingKey;
  readonly #config: CoreConfig;
  readonly #disk = new SimDisk();
  readonly #sealingKey: Uint8Array;
  readonly #clients: SimClient[] = [];
  readonly #faults: Record<string, number> = {};
  /** Refusals by error name. */
  readonly #refusals: Record<string, number> = {};
  readonly #violations: string[] = [];
  /** Who placed each order id, as the clients know it (the sockets' ownership check). */
  readonly #owners = new Map<string, string>();
  /** Order ids refused for a dead token: none may ever be booked. */
  readonly #refusedForToken = new Set<string>();
  /** Per tree, the chain's root at the last slot or reorg: what the venue's window holds. */
  readonly #roots: string[] = [];
  readonly #clock: VenueClock;
  #ledger = new OrderLedger();
  /** Every event the venue let out (to its listeners), in order, as text. */
  #released: string[] = [];
  #venue!: SimVenue;
  #boots = 0;
  #warpMs = 0;
  #nextOrder = 1;
  /** Openings of the notes settlement may create, by commitment (#foreseeOutputs). */
  readonly #foreseen = new Map<string, NoteOpeningReveal>();
  /** The real prover on the circuit seed; null with stand-in proofs. */
  readonly #prover: BarrierProver | null;
  /** Per market id: the oracle's price, and the slot until which its feed is stale. */
  readonly #prices = new Map<string, bigint>(MARKETS.map((m) => [m.marketId, PRICE_START]));
  readonly #staleUntil = new Map<string, bigint>(MARKETS.map((m) => [m.marketId, -1n]));
  #pausedUntil = -1n;
  #crashes = 0;
  #requests = 0;
  #acks = 0;
  #refused = 0;
  #frames = 0;
  #chainTouched = true;

  private constructor(
    readonly seed: number,
    hasherKind: SimHasherKind,
    hasher: NoteHasher,
    proofs: MatchProofCheck,
    prover: BarrierProver | null,
  ) {
    this.#random = new SimRandom(seed);
    this.#deadManRandom = new SimRandom(seed ^ 0x5eed_dead);
    this.#rates = drawFaultRates(this.#random);
    this.#hasherKind = hasherKind;
    this.#hasher = hasher;
    this.#config = { ...TEST_CORE_CONFIG, noteCommitment: hasher.noteCommitment };
    this.#sealingKey = seededBytes(`sim-sealing-key-${seed}`);
    this.#signer = tradingKeyFromSeed(seededBytes(`sim-settlement-signer-${seed}`));
    this.#prover = prover;
    this.#chain = new ChainSimulator(
      hasher,
      {
        matchProofs: proofs.mode,
        shards: TREES,
        rootWindow: TEST_CORE_CONFIG.rootWindowMax,
        finalityDepth: FINALITY_DEPTH,
        confirmationDepth: 1,
        governance: {
          authority: tradingKeyFromSeed(seededBytes(`sim-authority-${seed}`)).publicKey,
          measurement: 'ab'.repeat(32),
          settlement_signer: this.#signer.publicKey,
        },
      },
      proofs,
    );
    const chain = this.#chain;
    this.#clock = {
      nowMs: () => WALL_START_MS + Number(chain.slot) * SLOT_MS + this.#warpMs,
      slot: () => chain.slot,
      finalizedSlot: () => chain.finalizedSlot(),
      slotDurationMs: SLOT_MS,
    };
    for (let i = 0; i < ACCOUNTS; i++) this.#clients.push(new SimClient(seed, i));
  }

  static async run(options: SimOptions): Promise<SimReport> {
    const kind = options.hasher ?? 'sha256';
    const proofs = options.proofs ?? 'stand-in';
    if (proofs === 'groth16' && kind !== 'poseidon') {
      throw new Error('the real match circuit proves Poseidon notes: run it with the poseidon hasher');
    }
    const hasher = await simHasher(kind);
    const prover =
      proofs === 'groth16' ? barrierProver(createMatchProver({ workers: PROVER_WORKERS })) : null;
    const sim = new Simulator(options.seed, kind, hasher, await loadMatchProofCheck(proofs), prover);
    try {
      return await sim.#run(options);
    } finally {
      await prover?.close();
    }
  }

  async #run(options: SimOptions): Promise<SimReport> {
    const kind = this.#hasherKind;
    let step = 0;
    try {
      await this.#open();
      for (step = 1; step <= options.steps; step++) {
        await this.#step();
        await this.#check(step % REPLAY_CHECK_STEPS === 0 && step !== options.steps);
      }
      await this.#check(true);
      await this.#venue.kill();
    } catch (error) {
      await this.#venue?.kill().catch(() => undefined);
      throw new SimFailure(options.seed, step, error, options.steps, kind, options.proofs);
    }
    return this.#report(options.steps);
  }

  // ---- The world ----

  async #open(): Promise<void> {
    const chain = this.#chain;
    for (const market of MARKETS)
      listOnChain(chain, market, { price: this.#priceOf(market), confidence: 1n });
    // The clients' view of the roots follows the chain's beats, as the venue's root mirror does.
    chain.onEvent((event) => {
      if (event.kind === 'slot' || event.kind === 'reorg') this.#captureRoots();
    });
    chain.advance(FINALITY_DEPTH + 1);
    await this.#bootVenue();
  }

  #captureRoots(): void {
    for (let tree = 0; tree < TREES; tree++) this.#roots[tree] = this.#chain.currentRoot(tree).root;
  }

  async #bootVenue(): Promise<void> {
    this.#disk.holdSyncs = false;
    this.#boots += 1;
    const boot = this.#boots;
    this.#venue = await SimVenue.boot({
      config: this.#config,
      markets: MARKETS,
      clock: this.#clock,
      chain: this.#chain,
      signer: this.#signer,
      hasher: this.#hasher,
      prover: this.#prover?.lent ?? createStandInMatchProver(this.#hasher),
      disk: this.#disk,
      sealingKey: this.#sealingKey,
      sessionId: createHash('sha256').update(`sim-session-${this.seed}-${boot}`).digest('hex'),
      clients: this.#clients,
      onFault: (fault) => this.#violations.push(`the stream logged a fault: ${JSON.stringify(fault)}`),
      onStateRefused: (line) => this.#violations.push(`the state check refused boot ${boot}: ${line}`),
      onEvents: (events) => {
        if (boot === this.#boots) this.#heard(events);
      },
    });
    // The monitors state the gates and the price again at every boot (a lost record is no lost gate).
    const engine = this.#venue.engine;
    const slot = this.#chain.slot;
    engine.record({
      type: 'venue_gate',
      pauseReasons: slot < this.#pausedUntil ? ['attestation_mismatch'] : [],
    });
    for (const market of MARKETS) {
      const stale = slot < this.#staleUntilOf(market);
      engine.record({
        type: 'market_gate',
        marketId: market.marketId,
        pausedReason: stale ? 'oracle_stale' : null,
      });
      engine.record({
        type: 'oracle_price',
        marketId: market.marketId,
        price: stale ? null : this.#priceOf(market),
      });
    }
    await this.#quiesce();
    this.#disk.holdSyncs = true;
  }

  /** Completes every fdatasync (and those the completions start) until the journal is idle. */
  async #quiesce(): Promise<void> {
    await settle();
    while (this.#disk.pendingSyncs > 0) {
      this.#disk.completeSyncs();
      await settle();
    }
  }

  async #step(): Promise<void> {
    if (this.#deadManRandom.chance(DEAD_MAN_STEP_RATE)) await this.#deadMan();
    const roll = this.#random.below(100);
    if (roll < 42) await this.#place();
    else if (roll < 54) await this.#cancel();
    else if (roll < 62) await this.#modify();
    else {
      // Real proofs take wall time: the slot waits for them, so the seed's order of events holds.
      await this.#prover?.idle();
      this.#tick();
    }
    this.#maybeFaults();
    await settle();
    if (!this.#random.chance(this.#rates.diskLag)) {
      this.#disk.completeSyncs();
      await settle();
    }
    if (this.#random.chance(this.#rates.crash)) await this.#crash('crash');
    // A journal that failed refuses everything until the venue restarts and recovers.
    else if (this.#venue.engine.journal?.failure != null) await this.#crash('restart_after_sync_failure');
  }

  // ---- Clients ----

  /**
   * Makes sure the client has a logged-in connection. A client whose token died (expired, revoked)
   * first sends one order on it, which must be refused for its token and booked never.
   */
  async #session(client: SimClient): Promise<SimSocket> {
    if (client.socket !== null && !client.socket.closed && client.loggedIn && client.token !== null) {
      if (this.#tokenAlive(client)) return client.socket;
      if (this.#random.chance(0.5)) this.#probeDeadToken(client);
    }
    if (client.socket === null || client.socket.closed) {
      client.connections += 1;
      const socket = new SimSocket(
        `${client.accountId}#${client.connections}`,
        (orderId) => this.#owners.get(orderId),
        (frame) => this.#onFrame(client, frame),
      );
      this.#venue.stream.accept(
        socket.asWebSocket(),
        `conn-${this.seed}-${client.accountId}-${client.connections}`,
      );
      client.socket = socket;
      client.loggedIn = false;
    }
    const socket = client.socket;
    // Earlier replies on this socket may wait for the disk; a login must not wait behind them.
    await this.#quiesce();
    const issued = await this.#venue.issueToken(client, this.#clock.nowMs());
    client.token = {
      accessToken: issued.accessToken,
      expiresAtMs: issued.claims.expiresAtMs,
      revoked: false,
    };
    const login = await this.#request(socket, client, (id) =>
      client.loginFrame(issued.accessToken, this.#random.chance(0.5), id),
    );
    if (login['op'] !== 'login') {
      throw new SimInvariantError(`a login with a fresh token was answered ${JSON.stringify(login)}`);
    }
    socket.accountId = client.accountId;
    client.loggedIn = true;
    const subscribed = await this.#request(socket, client, (id) =>
      JSON.stringify({ op: 'subscribe', request_id: id, channels: ['orders', 'fills'] }),
    );
    if (subscribed['op'] !== 'subscribe') {
      throw new SimInvariantError(`subscribing was answered ${JSON.stringify(subscribed)}`);
    }
    return socket;
  }

  /** Sends a frame and waits for its reply (token checks run on a crypto thread: wait it out). */
  async #request(socket: SimSocket, client: SimClient, frame: (id: string) => string): Promise<Frame> {
    const id = client.requestId();
    const holder: { reply: Frame | null } = { reply: null };
    void socket.reply(id).then((received) => {
      holder.reply = received;
    });
    socket.deliver(frame(id));
    while (holder.reply === null) await settle();
    return holder.reply;
  }

  #tokenAlive(client: SimClient): boolean {
    const token = client.token;
    return token !== null && !token.revoked && this.#clock.nowMs() < token.expiresAtMs;
  }

  #probeDeadToken(client: SimClient): void {
    const note = client.wallet[0]?.note;
    if (note === undefined || client.socket === null) return;
    this.#fault('dead_token_request');
    const order = this.#signOrder(client, note);
    this.#refusedForToken.add(order.orderId);
    this.#send(client, client.placeFrame(order.body, 'x'), {
      kind: 'place',
      orderId: order.orderId,
      tokenAlive: false,
    });
  }

  readonly #expected = new Map<string, Expectation>();

  #send(client: SimClient, text: string, expectation: Expectation): void {
    const socket = client.socket;
    if (socket === null) return;
    const id = client.requestId();
    this.#expected.set(`${client.accountId}/${id}`, expectation);
    this.#requests += 1;
    // The request id goes in front: every frame builder writes `"request_id":"x"` once.
    socket.deliver(text.replace('"request_id":"x"', `"request_id":"${id}"`));
  }

  #onFrame(client: SimClient, frame: Frame): void {
    this.#frames += 1;
    const requestId = frame['request_id'];
    if (typeof requestId !== 'string') return;
    const key = `${client.accountId}/${requestId}`;
    const expected = this.#expected.get(key);
    if (expected === undefined) return;
    this.#expected.delete(key);
    if (frame['op'] === 'error') {
      this.#refused += 1;
      const name = errorNameOf(Number(frame['code'])) ?? String(frame['code']);
      this.#refusals[name] = (this.#refusals[name] ?? 0) + 1;
      if (process.env['SIM_DEBUG']) console.error(expected.kind, name, frame['message']);
      if (expected.kind === 'cross_market' && !CROSS_MARKET_REFUSALS.has(name) && !AUTH_REFUSALS.has(name)) {
        this.#violations.push(
          `${client.accountId} cross-market modify ${requestId} was refused with ${name}`,
        );
      }
      const forToken = AUTH_REFUSALS.has(name);
      if (forToken === expected.tokenAlive) {
        this.#violations.push(
          `${client.accountId} ${expected.kind} ${requestId} was refused with ${name} while its token was ${expected.tokenAlive ? 'alive' : 'dead'}`,
        );
      }
      return;
    }
    if (!expected.tokenAlive) {
      this.#violations.push(`${client.accountId} ${expected.kind} with a dead token was accepted`);
      return;
    }
    if (expected.kind === 'cross_market') {
      this.#violations.push(`${client.accountId} cross-market modify ${requestId} was accepted`);
      return;
    }
    this.#acks += 1;
    if (expected.kind === 'place' || expected.kind === 'modify') client.acked.add(expected.orderId);
  }

  #orderId(): string {
    return createHash('sha256')
      .update(`sim-order-${this.seed}-${this.#nextOrder++}`)
      .digest('hex')
      .slice(0, 32);
  }

  /**
   * Signs a fresh order on `note`: its side is the one that spends the note's mint, its market the
   * mint's own unless `named` overrides it (a cross-market modify).
   */
  #signOrder(client: SimClient, note: SimNote, orderId = this.#orderId(), named?: MarketConfig): SimOrder {
    const { market: own, side } = marketOfMint(note.mint);
    const market = named ?? own;
    const price = this.#priceOf(market) + BigInt(this.#random.below(11) - 5) * market.tickSize;
    const coverable = side === 'bid' ? (note.value * market.priceScale) / price : note.value;
    const cap = coverable < 40n ? coverable : 40n;
    const amount = cap < 1n ? 1n : 1n + BigInt(this.#random.below(Number(cap)));
    const body = client.signOrder({
      orderId,
      market,
      side,
      type: this.#random.pick(['limit', 'limit', 'limit', 'ioc', 'fok'] as const),
      amount,
      price,
      expirySlot: this.#chain.slot + 15n + BigInt(this.#random.below(200)),
      note,
      merkleRoot: this.#roots[note.treeId] ?? '',
      sessionId: this.#venue.sessionId,
    });
    this.#owners.set(orderId, client.accountId);
    return { orderId, side, note, body };
  }

  /**
   * Deposits a note of each mint of one market for the client (usable once the next slot's roots
   * are out).
   */
  #deposit(client: SimClient): void {
    const market = this.#random.pick(MARKETS);
    for (const mint of [market.quoteMint, market.baseMint]) {
      const value = 1n + BigInt(this.#random.below(mint === market.quoteMint ? 60 : 50));
      const treeId = this.#random.below(TREES);
      const blinding = BigInt(
        `0x${seededBytes(`sim-blinding-${this.seed}-${this.#nextOrder++}`)
          .toString('hex')
          .slice(2)}`,
      );
      const note = createNote(this.#hasher, {
        ownerCommitment: this.#hasher.ownerCommitment(client.spendingKey),
        assetId: assetIdOfMint(mint),
        value,
        blinding,
      });
      this.#chainTouched = true;
      this.#chain.deposit({
        tree_id: treeId,
        mint,
        value,
        owner_commitment: note.hex.ownerCommitment,
        blinding: fieldToHex(note.blinding),
        spend_authority: client.spendAuthority,
      });
      client.wallet.push({
        note: {
          commitment: note.hex.commitment,
          ownerCommitment: note.hex.ownerCommitment,
          innerHash: note.hex.innerHash,
          value,
          treeId,
          mint,
        },
        slot: this.#chain.slot,
      });
    }
  }

  /** A note deposited before this slot's roots were mirrored, and still on the chain (no reorg). */
  #usableNote(client: SimClient): SimNote | undefined {
    const slot = this.#chain.slot;
    for (let i = 0; i < client.wallet.length; i++) {
      const entry = client.wallet[i] as SimClient['wallet'][number];
      if (this.#chain.locate(entry.note.commitment) === undefined) {
        if (entry.slot < slot) client.wallet.splice(i--, 1); // a reorg took the deposit back
        continue;
      }
      if (entry.slot >= slot) continue;
      client.wallet.splice(i, 1);
      return entry.note;
    }
    return undefined;
  }

  async #place(): Promise<void> {
    const client = this.#random.pick(this.#clients);
    await this.#session(client);
    const alive = this.#tokenAlive(client);
    const sent = [...client.orders.values()];
    if (sent.length > 0 && this.#random.chance(this.#rates.replay)) {
      this.#fault('replay');
      const again = this.#random.pick(sent);
      this.#send(client, client.placeFrame(again.body, 'x'), { kind: 'replay', tokenAlive: alive });
      return;
    }
    const live = this.#ledger.liveOrders(client.accountId);
    if (live.length > 0 && this.#random.chance(this.#rates.noteReuse)) {
      const holder = client.orders.get(this.#random.pick(live));
      if (holder !== undefined) {
        this.#fault('note_reuse');
        const order = this.#signOrder(client, holder.note);
        this.#send(client, client.placeFrame(order.body, 'x'), {
          kind: 'place',
          orderId: order.orderId,
          tokenAlive: alive,
        });
        return;
      }
    }
    const note = this.#usableNote(client);
    if (note === undefined) {
      this.#deposit(client);
      return;
    }
    const order = this.#signOrder(client, note);
    client.orders.set(order.orderId, order);
    this.#send(client, client.placeFrame(order.body, 'x'), {
      kind: 'place',
      orderId: order.orderId,
      tokenAlive: alive,
    });
  }

  /**
   * A logged-in client arms (timeout 1-8 slots), refreshes, disarms, or sends a timeout of 0 (which
   * must be refused with 1039 and change nothing). The reply is awaited, so the deadline it states is
   * durable: the invariant in #check holds it to that deadline across crashes.
   */
  async #deadMan(): Promise<void> {
    const random = this.#deadManRandom;
    const client = random.pick(this.#clients);
    const socket = client.socket;
    if (socket === null || socket.closed || !client.loggedIn || !this.#tokenAlive(client)) return;
    const roll = random.below(10);
    const timeout = roll === 0 ? 0 : 1 + random.below(8);
    const frame = (id: string) =>
      roll === 1 || roll === 2
        ? JSON.stringify({ op: 'dead_man.disarm', request_id: id })
        : JSON.stringify({ op: 'dead_man.arm', request_id: id, params: { timeout_slots: timeout } });
    await this.#quiesce();
    const id = client.requestId();
    const holder: { reply: Frame | null } = { reply: null };
    void socket.reply(id).then((received) => {
      holder.reply = received;
    });
    socket.deliver(frame(id));
    // The reply waits for its journal record: complete the disk's syncs until it comes.
    while (holder.reply === null) {
      this.#disk.completeSyncs();
      await settle();
    }
    const reply = holder.reply as Frame;
    if (reply['op'] === 'error') {
      const name = errorNameOf(Number(reply['code']));
      // Refusals that come before the timeout is looked at (token, rate limit, a failed journal) are fine.
      const earlier = AUTH_REFUSALS.has(name ?? '') || DEAD_MAN_EARLIER_REFUSALS.has(name ?? '');
      if (roll === 0 && name !== 'DEAD_MAN_TIMEOUT_ZERO' && !earlier) {
        this.#violations.push(`a dead-man timeout of 0 was refused with ${name}, not 1039`);
      }
      this.#countDeadMan(`dead_man_refused_${name}`);
      return;
    }
    if (roll === 0) this.#violations.push('a dead-man timeout of 0 was accepted');
    const result = reply['result'] as Frame;
    if (reply['op'] === 'dead_man.disarm') {
      this.#deadlines.delete(client.accountId);
      this.#countDeadMan('dead_man_disarm');
      return;
    }
    const deadline = BigInt(result['deadline_slot'] as number);
    if (deadline !== BigInt(result['armed_slot'] as number) + BigInt(timeout)) {
      this.#violations.push(`dead-man deadline ${deadline} is not armed_slot + ${timeout}`);
    }
    this.#deadlines.set(client.accountId, deadline);
    this.#countDeadMan('dead_man_arm');
  }

  /**
   * The dead-man invariant: one slot after an account's deadline, none of the orders it held when
   * the deadline came still rests (orders placed after the timer fired are the bot's new business).
   */
  #checkDeadlines(): void {
    const core = this.#venue.engine.core;
    for (const [accountId, deadline] of this.#deadlines) {
      if (core.slot <= deadline) continue;
      this.#deadlines.delete(accountId);
      this.#countDeadMan('dead_man_fired');
      for (const record of core.openOrders(accountId)) {
        const rests = record.state === 'resting' || record.state === 'partially_filled';
        if (rests && record.arrival_slot < deadline) {
          this.#violations.push(
            `order ${record.order_id} of ${accountId} still rests at slot ${core.slot}, after the dead-man deadline ${deadline}`,
          );
        }
      }
    }
  }

  async #cancel(): Promise<void> {
    const client = this.#random.pick(this.#clients);
    const live = this.#ledger.liveOrders(client.accountId);
    if (live.length === 0) return;
    await this.#session(client);
    const orderId = this.#random.pick(live);
    const frame = client.cancelFrame(orderId, this.#venue.sessionId, 'x');
    this.#send(client, frame, { kind: 'cancel', tokenAlive: this.#tokenAlive(client) });
  }

  async #modify(): Promise<void> {
    const client = this.#random.pick(this.#clients);
    const live = this.#ledger.liveOrders(client.accountId);
    if (live.length === 0) return;
    await this.#session(client);
    const oldOrderId = this.#random.pick(live);
    const old = client.orders.get(oldOrderId);
    if (old === undefined) return;
    const alive = this.#tokenAlive(client);
    if (this.#random.chance(this.#rates.crossMarketModify)) {
      // The replacement names the other market: refused before anything changes, never booked.
      const other = MARKETS.find((m) => m !== marketOfMint(old.note.mint).market) as MarketConfig;
      const stray = this.#signOrder(client, old.note, this.#orderId(), other);
      this.#fault('cross_market_modify');
      this.#send(client, client.modifyFrame(oldOrderId, stray.body, 'x'), {
        kind: 'cross_market',
        tokenAlive: alive,
      });
      return;
    }
    // A reprice in place keeps the id; otherwise a new id. Either way the same note backs it.
    const inPlace = this.#random.chance(0.5);
    const replacement = this.#signOrder(client, old.note, inPlace ? oldOrderId : this.#orderId());
    client.orders.set(replacement.orderId, replacement);
    const frame = client.modifyFrame(oldOrderId, replacement.body, 'x');
    this.#send(client, frame, {
      kind: 'modify',
      orderId: replacement.orderId,
      tokenAlive: alive,
    });
  }

  // ---- What the venue lets out ----

  /** Events as the venue's listeners hear them: after durability, in journal order. */
  #heard(events: readonly CoreEvent[]): void {
    // A batch's record of matches spelled out as the match and order events it stands for.
    for (const event of expandedEvents(events)) {
      this.#released.push(eventText(event));
      const booked = this.#bookedBy(event);
      if (booked !== null) {
        const order = this.#clients.find((c) => c.accountId === booked.accountId)?.orders.get(booked.orderId);
        this.#ledger.booked(
          booked.orderId,
          booked.accountId,
          order?.note.commitment ?? `unknown-${booked.orderId}`,
        );
      }
      this.#ledger.observe([event]);
      if (event.type === 'match') this.#foreseeOutputs(event);
      if (event.type === 'order' && event.kind === 'partially_filled' && event.newNoteAmount !== undefined) {
        this.#followChange(event.accountId, event.orderId, event.newNoteAmount);
      }
    }
  }

  /**
   * The chain holds settlement outputs as bare commitments, so its value audit needs their openings.
   * Each owner can derive the two notes a match would create from its own note and the match (as
   * the SDK does from the memo); the simulator keeps them, and hands them to the audit. An output
   * the owners could not derive stays hidden there, and the audit fails on it.
   */
  #foreseeOutputs(event: MatchEvent): void {
    const order = this.#clients.find((c) => c.accountId === event.accountId)?.orders.get(event.orderId);
    const market = MARKETS.find((m) => m.marketId === event.marketId);
    if (order === undefined || market === undefined || order.note.commitment !== event.noteCommitment) return;
    const parent = { ownerCommitment: order.note.ownerCommitment, innerHash: order.note.innerHash };
    const bid = event.side === 'bid';
    const paid = bid ? event.quoteAmount : event.baseQuantity;
    const notes = [
      deriveFillNote(
        this.#hasher,
        parent,
        assetIdOfMint(bid ? market.baseMint : market.quoteMint),
        bid ? event.baseQuantity : event.quoteAmount,
      ),
      deriveChangeNote(this.#hasher, parent, assetIdOfMint(order.note.mint), event.noteValue - paid),
    ];
    for (const note of notes) {
      if (note.value === 0n) continue;
      this.#foreseen.set(note.hex.commitment, {
        commitment: note.hex.commitment,
        owner_commitment: note.hex.ownerCommitment,
        note_inner_hash: note.hex.innerHash,
        value: note.value,
      });
    }
  }

  /** The order a placed or modified reply booked, or null. An order refused for its token never is. */
  #bookedBy(event: CoreEvent): { orderId: string; accountId: string } | null {
    if (!((event.type === 'placed' && !event.repeat) || event.type === 'modified')) return null;
    const orderId = event.response.order_id;
    if (this.#refusedForToken.has(orderId)) {
      this.#violations.push(`order ${orderId}, refused for its dead token, was booked`);
    }
    return { orderId, accountId: event.accountId };
  }

  /** The ledger rebuilt from the journal's records (after a crash): notes come from the commands. */
  #rebuildLedger(records: readonly ReplayedRecord[]): void {
    this.#ledger = new OrderLedger();
    for (const { command, events } of records) {
      for (const event of events) {
        const booked = this.#bookedBy(event);
        if (booked === null) continue;
        const body =
          command.type === 'place'
            ? command.order
            : command.type === 'modify'
              ? command.request.replacement
              : null;
        this.#ledger.booked(
          booked.orderId,
          booked.accountId,
          body?.note_commitment ?? `unknown-${booked.orderId}`,
        );
      }
      this.#ledger.observe(events);
      if (command.type === 'match_settled' && command.changeNote !== null) {
        this.#ledger.changeNote(command.marketId, command.matchId, command.changeNote.commitment);
      }
    }
  }

  /**
   * A partial fill moved the order onto its change note. The owner derives that note from its own
   * note (as the SDK does), and it must be a leaf of the chain by now (the fill is final).
   */
  #followChange(accountId: string, orderId: string, value: bigint): void {
    const order = this.#clients.find((c) => c.accountId === accountId)?.orders.get(orderId);
    if (order === undefined || value === 0n) return;
    const change = deriveChangeNote(
      this.#hasher,
      { ownerCommitment: order.note.ownerCommitment, innerHash: order.note.innerHash },
      assetIdOfMint(order.note.mint),
      value,
    );
    if (this.#chain.locate(change.hex.commitment) === undefined) {
      this.#violations.push(`order ${orderId}'s change note, as its owner derives it, is not on the chain`);
    }
    order.note = { ...order.note, commitment: change.hex.commitment, innerHash: change.hex.innerHash, value };
    this.#ledger.moveToNote(orderId, change.hex.commitment);
  }

  // ---- Time, chain and oracle ----

  #tick(): void {
    const chain = this.#chain;
    const rates = this.#rates;
    if (this.#random.chance(rates.settlementFailure)) {
      this.#fault('settlement_failure');
      chain.faults.failNextSettlement(
        this.#random.pick(SETTLEMENT_FAILURE_REASONS),
        this.#random.pick(MARKETS).marketId,
      );
    }
    if (this.#random.chance(rates.settlementDelay)) {
      this.#fault('settlement_delay');
      chain.faults.delayNextSettlement(
        1n + BigInt(this.#random.below(rates.settlementDelaySlotsMax)),
        this.#random.pick(MARKETS).marketId,
      );
    }
    if (this.#random.chance(rates.lockRevert)) this.#revertOneLock();
    if (this.#random.chance(rates.slotStall)) {
      this.#fault('slot_stall');
      chain.faults.stallSlots(1 + this.#random.below(SLOT_STALL_TICKS_MAX));
    }
    // Each beat: the root mirror, then the pipeline (which catches the core up: expiries, batches).
    const before = chain.slot;
    chain.advance(1);
    // A stalled chain swallows the beat, but the host's clock goes on (tokens still age).
    if (chain.slot === before) this.#warpMs += SLOT_MS;
    this.#chainTouched = true;
    if (this.#random.chance(rates.reorg)) {
      const depth = 1 + this.#random.below(FINALITY_DEPTH - 1);
      this.#fault('reorg');
      chain.reorg(BigInt(depth));
    }
    const venue = this.#venue;
    venue.stream.sweep();
    const slot = chain.slot;
    for (const market of MARKETS) {
      const { marketId } = market;
      const staleUntil = this.#staleUntilOf(market);
      if (slot === staleUntil) {
        venue.engine.record({ type: 'market_gate', marketId, pausedReason: null });
      }
      if (slot >= staleUntil) {
        const next = this.#priceOf(market) + BigInt(this.#random.below(3) - 1) * market.tickSize;
        if (next >= PRICE_MIN && next <= PRICE_MAX) this.#prices.set(marketId, next);
        venue.engine.record({ type: 'oracle_price', marketId, price: this.#priceOf(market) });
      }
    }
    if (slot === this.#pausedUntil) venue.engine.record({ type: 'venue_gate', pauseReasons: [] });
  }

  /**
   * Reverts the chain's lock on the note of one order awaiting settlement, if it holds one: the
   * pipeline must lock again or fail the match with lock_reverted, never settle on a dead lock.
   */
  #revertOneLock(): void {
    const slot = this.#chain.slot;
    const pending = this.#clients.flatMap((client) =>
      [...client.orders.values()].filter(
        (order) => this.#ledger.stateOf(order.orderId) === 'pending_settlement',
      ),
    );
    if (pending.length === 0) return;
    const { note } = this.#random.pick(pending);
    const tag = this.#hasher.noteUseTagHex(note.ownerCommitment, note.innerHash);
    const lock = this.#chain.lock(tag);
    if (lock === undefined || lock.reverted || lock.expiry_slot < slot) return;
    this.#fault('lock_revert');
    this.#chainTouched = true;
    this.#chain.faults.revertLock(tag);
  }

  #maybeFaults(): void {
    const slot = this.#chain.slot;
    const rates = this.#rates;
    const engine = this.#venue.engine;
    const market = this.#random.pick(MARKETS);
    const { marketId } = market;
    if (slot >= this.#staleUntilOf(market) && this.#random.chance(rates.oracleStale)) {
      this.#fault('oracle_stale');
      this.#staleUntil.set(marketId, slot + 1n + BigInt(this.#random.below(20)));
      engine.record({ type: 'market_gate', marketId, pausedReason: 'oracle_stale' });
      engine.record({ type: 'oracle_price', marketId, price: null });
    }
    if (this.#random.chance(rates.oracleReplay)) {
      // The monitor refuses a replayed update and pauses the market until the next good one.
      this.#fault('oracle_replay');
      this.#staleUntil.set(marketId, slot + 1n);
      engine.record({ type: 'market_gate', marketId, pausedReason: 'oracle_invalid' });
      engine.record({ type: 'oracle_price', marketId, price: null });
    }
    if (slot >= this.#pausedUntil && this.#random.chance(rates.venuePause)) {
      this.#fault('attestation_mismatch');
      this.#pausedUntil = slot + 1n + BigInt(this.#random.below(30));
      engine.record({ type: 'venue_gate', pauseReasons: ['attestation_mismatch'] });
    }
    if (this.#random.chance(rates.disconnect)) {
      const client = this.#random.pick(this.#clients);
      if (client.socket !== null && !client.socket.closed) {
        this.#fault('disconnect');
        client.socket.hangUp();
        client.socket = null;
        client.loggedIn = false;
      }
    }
    if (this.#random.chance(rates.clockJump)) {
      this.#fault('clock_jump');
      this.#warpMs += (10 + this.#random.below(31)) * 60_000;
    }
    if (this.#random.chance(rates.tokenRevoke)) {
      const client = this.#random.pick(this.#clients);
      this.#fault('token_revoked');
      if (client.token !== null) client.token.revoked = true;
      void this.#venue.auth.revokeTokens(client.apiKey, this.#clock.nowMs());
    }
    if (this.#random.chance(rates.syncFailure)) this.#disk.failNextSync = true;
  }

  // ---- Crashes ----

  /**
   * The venue dies with records in flight; the disk keeps what it keeps; the next boot recovers.
   * Checked: the recovered state is the journal replayed from scratch, and every event the venue
   * had let out before the crash (each acknowledgement among them) is in that replay, in order.
   */
  async #crash(kind: string): Promise<void> {
    this.#fault(kind);
    this.#crashes += 1;
    const heard = this.#released;
    this.#released = []; // the next boot's events are checked against the replay below
    await this.#venue.kill();
    const { torn } = this.#disk.crash(this.#random);
    if (torn) this.#fault('torn_write');
    this.#disk.failNextSync = false;
    for (const client of this.#clients) {
      client.socket = null;
      client.loggedIn = false;
      client.token = null;
    }
    this.#expected.clear();
    await this.#bootVenue();
    const { core, records } = await replayJournal(this.#disk, this.#config, this.#sealingKey);
    if (core.stateHash() !== this.#venue.engine.core.stateHash()) {
      throw new SimInvariantError(
        'after recovery, the journal replayed from scratch does not give the recovered state',
      );
    }
    const replayed = records.flatMap((record) => record.events.map(eventText));
    for (let i = 0; i < heard.length; i++) {
      if (replayed[i] !== heard[i]) {
        if (process.env['SIM_DEBUG'])
          console.error({
            heard: heard.slice(i - 2, i + 3),
            replayed: replayed.slice(i - 2, i + 3),
            n: heard.length,
            m: replayed.length,
          });
        throw new SimInvariantError(
          `event ${i} the venue let out before the crash is not in the recovered journal: ${heard[i]}`,
        );
      }
    }
    const booked = new Set(
      records.flatMap((record) =>
        record.events.flatMap((e) =>
          e.type === 'placed' || e.type === 'modified' ? [e.response.order_id] : [],
        ),
      ),
    );
    for (const client of this.#clients) {
      for (const orderId of client.acked) {
        if (!booked.has(orderId)) {
          throw new SimInvariantError(
            `order ${orderId} was acknowledged to ${client.accountId} but lost in the crash`,
          );
        }
      }
    }
    // The ledger restarts from what the journal says happened.
    const heardSinceBoot = this.#released.length;
    this.#released = replayed;
    this.#rebuildLedger(records);
    // Clients reconcile too (as a bot does from GET /orders after reconnecting): partial fills that
    // were recovered from the disk but never sent move their orders onto the change notes.
    const all = records.flatMap((record) => record.events);
    const unheard = all.slice(heard.length, all.length - heardSinceBoot);
    for (const event of unheard) {
      if (event.type === 'match') this.#foreseeOutputs(event);
      if (event.type === 'order' && event.kind === 'partially_filled' && event.newNoteAmount !== undefined) {
        this.#followChange(event.accountId, event.orderId, event.newNoteAmount);
      }
    }
  }

  // ---- Invariants ----

  async #check(replay: boolean): Promise<void> {
    const venue = this.#venue;
    venue.engine.core.validateInternalState();
    this.#ledger.checkNotes();
    // Value moves on chain only in a slot, a reorg or a deposit: audit after those (it reads every note).
    if (this.#chainTouched) {
      this.#chainTouched = false;
      for (const [mint, totals] of this.#chain.audit(this.#foreseen.values())) {
        if (totals.hidden > 0) {
          throw new SimInvariantError(`${totals.hidden} notes of ${mint} on chain that no owner can open`);
        }
        if (totals.vault !== totals.notes) {
          throw new SimInvariantError(
            `value not conserved on chain for ${mint}: vault ${totals.vault}, notes ${totals.notes}`,
          );
        }
      }
    }
    this.#checkDeadlines();
    for (const client of this.#clients) {
      const socket = client.socket;
      if (socket !== null) this.#violations.push(...socket.violations.splice(0));
    }
    if (this.#violations.length > 0) throw new SimInvariantError(this.#violations.join('; '));
    if (!replay) return;
    await this.#quiesce();
    // A sync failure while catching up stops the journal: restart (and audit) first.
    if (venue.engine.journal?.failure != null) {
      await this.#crash('restart_after_sync_failure');
      await this.#quiesce();
    }
    const live = this.#venue.engine.core.stateHash();
    const { core, records } = await replayJournal(this.#disk, this.#config, this.#sealingKey);
    if (core.stateHash() !== live) {
      throw new SimInvariantError('replaying the journal from scratch does not give the live stateHash');
    }
    const replayed = records.flatMap((record) => record.events.map(eventText));
    if (replayed.length !== this.#released.length || replayed.some((text, i) => text !== this.#released[i])) {
      throw new SimInvariantError('the events the venue let out differ from those of its journal replayed');
    }
  }

  /** Dead-man steps are client behaviour, not faults: counted apart so calm seeds stay calm. */
  #countDeadMan(kind: string): void {
    this.#deadManCounts[kind] = (this.#deadManCounts[kind] ?? 0) + 1;
  }

  #fault(kind: string): void {
    this.#faults[kind] = (this.#faults[kind] ?? 0) + 1;
  }

  #priceOf(market: MarketConfig): bigint {
    return this.#prices.get(market.marketId) ?? PRICE_START;
  }

  #staleUntilOf(market: MarketConfig): bigint {
    return this.#staleUntil.get(market.marketId) ?? -1n;
  }

  #report(steps: number): SimReport {
    return {
      seed: this.seed,
      steps,
      hasher: this.#hasherKind,
      records: Number(this.#venue.engine.journal?.lastSeq ?? 0n),
      requests: this.#requests,
      acks: this.#acks,
      refused: this.#refused,
      orders: this.#ledger.orderCount,
      events: this.#ledger.eventsSeen,
      frames: this.#frames,
      crashes: this.#crashes,
      settlementBatches: Object.fromEntries(
        MARKETS.map((market) => [market.symbol, Number(this.#chain.market(market.marketId).next_batch_seq)]),
      ),
      faults: {
        ...this.#faults,
        ...(this.#disk.syncsFailed === 0 ? {} : { sync_failure: this.#disk.syncsFailed }),
      },
      refusals: { ...this.#refusals },
      deadMan: { ...this.#deadManCounts },
      rates: this.#rates,
      stateHash: this.#venue.engine.core.stateHash(),
      chainHash: this.#chain.stateHash(),
    };
  }
}

/** The market a note's mint trades on, and the side that spends it (each market has its own mints). */
function marketOfMint(mint: string): { market: MarketConfig; side: 'bid' | 'ask' } {
  for (const market of MARKETS) {
    if (mint === market.quoteMint) return { market, side: 'bid' };
    if (mint === market.baseMint) return { market, side: 'ask' };
  }
  throw new Error(`the simulator lists no market for mint ${mint}`);
}
