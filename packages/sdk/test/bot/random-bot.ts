/**
 * A trading bot written the way a user writes one: it imports '@venue/sdk' and nothing else. It
 * funds a NoteWallet with chain deposits, trades random limit orders (seeded, so a failing run can
 * be replayed) whose notes the Trader claims from that wallet, follows its fills over the stream,
 * and can stop and start again from its state folder (order log, nonces, note log).
 */
import {
  type Clock,
  type Credentials,
  connectVenue,
  KeyFile,
  type LocalOrder,
  NoteWallet,
  type OpenStreamOptions,
  type StreamGap,
  type StreamTestHooks,
  Trader,
  type TrustAnchors,
  VenueApiError,
  type VenueClient,
  type VenueStream,
} from '@venue/sdk';

export interface BotConfig {
  readonly url: string;
  readonly trust: TrustAnchors;
  readonly credentials: Credentials;
  readonly keyFile: string;
  readonly stateDir: string;
  readonly symbols: readonly string[];
  /** The stream's channels: without 'fills' no memo ever arrives and the wallet infers outputs. */
  readonly channels: NonNullable<OpenStreamOptions['channels']>;
  /** The venue's clock for token lifetimes (a bot on a real venue leaves it to the system clock). */
  readonly clock?: Clock;
  /** Lets a test lose incoming frames; a production bot leaves it unset. */
  readonly hooks?: StreamTestHooks;
  /** Prices drawn, in ticks of 10, from `priceLow` to `priceHigh` inclusive (both sides). */
  readonly priceLow: bigint;
  readonly priceHigh: bigint;
  /** Order amounts are whole multiples of this many base units (2 to ORDER_LOTS_MAX lots). */
  readonly lot: bigint;
  /**
   * When a stream gap is reconciled: 'at-once' is `trader.follow(stream)`, which reconciles as soon
   * as the gap is seen, while the bot's own requests may be on their way; 'between-actions' wires
   * the events by hand and reconciles before the bot's next action (docs/sdk.md, Testing a bot).
   */
  readonly reconcile: 'at-once' | 'between-actions';
}

/** What a session did, for the test to check that a run was varied. */
export interface BotStats {
  placed: number;
  cancels: number;
  modifies: number;
  /** Refused by the venue (an order matched or ended meanwhile): nothing changed there. */
  refused: number;
  /** Refused by the SDK before sending: no spendable note covers the order or the replacement. */
  uncovered: number;
}

/** Lots per order at most; prices near the price scale make a bid cost about as much quote. */
const ORDER_LOTS_MAX = 20;
const TICK = 10n;

/** A small seeded generator (mulberry32): the same seed gives the same run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** One connected session of the bot: attested client, key file, wallet, trader, stream. */
export class BotSession {
  readonly stats: BotStats = { placed: 0, cancels: 0, modifies: 0, refused: 0, uncovered: 0 };
  /** Every gap the stream reported (lost frames, reconnects), and the reconciliations that answered. */
  readonly gaps: StreamGap['reason'][] = [];
  readonly reconcileErrors: Error[] = [];
  /** Gaps reconciled so far; fewer than `gaps` while a reconciliation is due or running. */
  #reconciled = 0;

  private constructor(
    readonly client: VenueClient,
    readonly keys: KeyFile,
    readonly wallet: NoteWallet,
    readonly trader: Trader,
    readonly stream: VenueStream,
    private readonly config: BotConfig,
  ) {}

  static async start(config: BotConfig): Promise<BotSession> {
    const client = await connectVenue({
      url: config.url,
      trust: config.trust,
      ...(config.clock === undefined ? {} : { clock: config.clock }),
    });
    await client.login(config.credentials);
    const keys = await KeyFile.load(config.keyFile);
    const wallet = await NoteWallet.open(keys, config.stateDir);
    const trader = Trader.open(client, keys, config.stateDir, { wallet });
    // Orders a crash left unsent are resent or adopted, and reservations settled, before trading.
    await trader.recover();
    // Orders placed over this socket are cancelled by the venue when it closes (spec 4.8 rule 2).
    const stream = await client.openStream({
      channels: config.channels,
      cancelOnDisconnect: true,
      ...(config.hooks === undefined ? {} : { hooks: config.hooks }),
    });
    const session = new BotSession(client, keys, wallet, trader, stream, config);
    stream.on('gap', (gap) => session.gaps.push(gap.reason));
    if (config.reconcile === 'at-once') {
      trader.follow(stream, (error) => {
        if (error !== undefined) session.reconcileErrors.push(error);
        session.#reconciled += 1;
      });
    } else {
      // Events and memos update the view and the wallet as they come; a gap waits for #catchUp.
      stream.on('order', (event) => trader.applyEvent(event));
      stream.on('fill', (message) => trader.applyFill(message));
    }
    // Whatever happened while the bot was away is only in the venue's records and the trees.
    await trader.reconcile();
    await wallet.scan(client);
    return session;
  }

  /**
   * One note per value, deposited through the chain's JSON-RPC at `chainRpcUrl` with the wallet's
   * own deposit path (the opening is recorded before the call is sent).
   */
  async deposit(chainRpcUrl: string, mint: string, values: readonly bigint[]): Promise<void> {
    for (const value of values) await this.wallet.depositVia(chainRpcUrl, { mint, value });
  }

  /** `steps` random actions: place (over REST or the stream), cancel or reprice. */
  async trade(random: () => number, steps: number): Promise<void> {
    await this.caughtUp();
    await this.wallet.scan(this.client); // received and change notes become spendable
    for (let step = 0; step < steps; step += 1) {
      await this.#catchUp();
      const open = this.trader.orders
        .open()
        .filter((o) => o.state === 'resting' || o.state === 'partially_filled');
      const roll = random();
      try {
        if (roll < 0.6 || open.length === 0) await this.#place(random);
        else if (roll < 0.8) await this.#cancel(pick(open, random), random);
        else await this.#reprice(pick(open, random), random);
      } catch (error) {
        if (error instanceof VenueApiError) this.stats.refused += 1;
        else if (error instanceof RangeError) this.stats.uncovered += 1;
        else throw error;
      }
    }
  }

  /**
   * Hears every frame the venue sent before now, and reconciles if any was lost. The ping's reply
   * comes after those frames and carries the next seq, so a frame lost just before is noticed.
   */
  async caughtUp(): Promise<void> {
    await this.stream.ping();
    while (this.#reconciled < this.gaps.length) {
      if (this.config.reconcile === 'between-actions') await this.#catchUp();
      else await new Promise((resolve) => setTimeout(resolve, 10)); // trader.follow's is running
    }
    await this.trader.endsSettled(); // the records of the orders that ended, read and applied
  }

  /** Ends the session: the stream closes (sweeping its orders), then the client and state files. */
  async stop(): Promise<void> {
    await this.stream.close();
    await this.trader.endsSettled();
    await this.client.close();
    this.trader.close();
    this.wallet.close();
  }

  /** Between actions: after a gap, the venue's records of the open orders (GET /orders/{id}). */
  async #catchUp(): Promise<void> {
    if (this.config.reconcile === 'at-once' || this.#reconciled === this.gaps.length) return;
    this.#reconciled = this.gaps.length;
    await this.trader.reconcile();
  }

  async #place(random: () => number): Promise<LocalOrder> {
    const { priceLow, priceHigh } = this.config;
    const ticks = Number((priceHigh - priceLow) / TICK);
    const order = await this.trader.place(
      {
        symbol: pick(this.config.symbols, random),
        side: random() < 0.5 ? 'bid' : 'ask',
        amount: this.config.lot * BigInt(2 + Math.floor(random() * (ORDER_LOTS_MAX - 1))),
        price: priceLow + TICK * BigInt(Math.floor(random() * (ticks + 1))),
        lifetimeSlots: BigInt(20 + Math.floor(random() * 200)),
      },
      random() < 0.3 ? this.stream : undefined,
    );
    this.stats.placed += 1;
    return order;
  }

  async #cancel(order: LocalOrder, random: () => number): Promise<void> {
    await this.trader.cancel(order.order_id, random() < 0.5 ? this.stream : undefined);
    this.stats.cancels += 1;
  }

  /** A new price a few ticks either way; a bid that now costs more than its note is refused locally. */
  async #reprice(order: LocalOrder, random: () => number): Promise<LocalOrder> {
    const step = TICK * BigInt(1 + Math.floor(random() * 4));
    const price = random() < 0.5 ? order.price_limit - step : order.price_limit + step;
    const replaced = await this.trader.modify(order.order_id, {
      price: price < this.config.priceLow ? this.config.priceLow : price,
      newOrderId: random() < 0.3,
    });
    this.stats.modifies += 1;
    return replaced;
  }
}

function pick<T>(items: readonly T[], random: () => number): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('nothing to pick from');
  return item;
}
