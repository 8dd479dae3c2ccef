/**
 * A trading bot written the way a user writes one: it imports '@venue/sdk' and nothing else. It
 * trades random limit orders (seeded, so a failing run can be replayed), keeps its own view of
 * its orders in a Trader backed by a state folder, and can stop and start again from that folder.
 */
import {
  type Credentials,
  connectVenue,
  KeyFile,
  type LocalOrder,
  NoteWallet,
  nominalCost,
  spentMintOf,
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
  /** The root the venue currently accepts; a venue that does not settle takes stub proofs against it. */
  readonly merkleRoot: string;
  readonly symbols: readonly string[];
}

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

/** One connected session of the bot: attested client, trader, stream. */
export class BotSession {
  private constructor(
    readonly client: VenueClient,
    readonly trader: Trader,
    readonly stream: VenueStream,
    readonly wallet: NoteWallet,
    private readonly config: BotConfig,
  ) {}

  static async start(config: BotConfig): Promise<BotSession> {
    const client = await connectVenue({ url: config.url, trust: config.trust });
    await client.login(config.credentials);
    const keys = await KeyFile.load(config.keyFile);
    const trader = Trader.open(client, keys, config.stateDir);
    await trader.recover();
    const wallet = await NoteWallet.open(keys, null);
    // Orders placed over this socket are cancelled by the venue when it closes (spec 4.8 rule 2).
    const stream = await client.openStream({ channels: ['orders'], cancelOnDisconnect: true });
    trader.follow(stream);
    // Whatever happened while the bot was away is only in the venue's records.
    await trader.reconcile();
    return new BotSession(client, trader, stream, wallet, config);
  }

  /** `steps` random actions: place (over REST or the stream), cancel or reprice. */
  async trade(random: () => number, steps: number): Promise<{ refused: number }> {
    let refused = 0;
    for (let step = 0; step < steps; step += 1) {
      const open = this.trader.orders.open().filter((o) => o.state === 'resting');
      const roll = random();
      try {
        if (roll < 0.55 || open.length === 0) await this.place(random);
        else if (roll < 0.8)
          await this.trader.cancel(pick(open, random).order_id, random() < 0.5 ? this.stream : undefined);
        else await this.reprice(pick(open, random), random);
      } catch (error) {
        if (!(error instanceof VenueApiError)) throw error;
        refused += 1; // a refusal changes nothing on the venue; the local view was read back
      }
    }
    return { refused };
  }

  /** Ends the session: the stream closes (sweeping its orders), the client and state files close. */
  async stop(): Promise<void> {
    await this.stream.close();
    await this.client.close();
    this.trader.close();
    this.wallet.close();
  }

  /** A bid moves down and an ask up: its note still covers it, and the book still does not cross. */
  private async reprice(order: LocalOrder, random: () => number): Promise<LocalOrder> {
    const step = 10n * BigInt(1 + Math.floor(random() * 5));
    const price = order.body.side === 'bid' ? order.price_limit - step : order.price_limit + step;
    return this.trader.modify(order.order_id, { price, newOrderId: random() < 0.3 });
  }

  private async place(random: () => number): Promise<LocalOrder> {
    const symbol = pick(this.config.symbols, random);
    const side = random() < 0.5 ? 'bid' : 'ask';
    const amount = BigInt(2 + Math.floor(random() * 50)); // worth at least one quote unit
    // Bids below asks, so nothing crosses: this run is about bookkeeping, not matching.
    const price =
      10n * BigInt(side === 'bid' ? 80 + Math.floor(random() * 10) : 120 + Math.floor(random() * 10));
    const instrument = await this.client.instrument(symbol);
    const { note } = this.wallet.prepareDeposit({
      mint: spentMintOf(side, instrument),
      value: nominalCost({ side, amount, price }, instrument),
    });
    return this.trader.place(
      {
        symbol,
        side,
        amount,
        price,
        lifetimeSlots: BigInt(20 + Math.floor(random() * 400)),
        input: this.wallet.stubInput(note, this.config.merkleRoot),
      },
      random() < 0.3 ? this.stream : undefined,
    );
  }
}

function pick<T>(items: readonly T[], random: () => number): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('nothing to pick from');
  return item;
}
