import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChainRpcClient } from '@venue/adapters';
import type { ValidInputProver } from '@venue/notes';
import type { FillMemoPlaintext, FillMessage, Instrument, OrderEvent, Side } from '@venue/protocol';
import {
  type Credentials,
  connectVenue,
  KeyFile,
  type NoteInput,
  NoteWallet,
  nominalCost,
  openFillMemoWithKeyFile,
  spentMintOf,
  Trader,
  type TrustAnchors,
  type VenueClient,
  type VenueStream,
  type WalletNote,
} from '@venue/sdk';
import type { DemoDeposit, DemoEvent, DemoFill, DemoOrder } from './demo-report.ts';

/**
 * One trader of the demo, built only from the SDK's public API, the way a bot author would: a
 * fresh key file, an attested and pinned connection, a note wallet and a Trader with durable
 * nonces in a private temporary directory, and one session stream (orders and fills). The Trader
 * owns the wallet's bookkeeping: it reserves each order's note before sending, and its stream
 * listeners spend, free and add notes as events and fill memos arrive. Chain actions (the
 * deposit) go to the chain simulator's JSON-RPC, as with `venue deposit`.
 */

export interface DemoTraderOptions {
  readonly name: string;
  readonly url: string;
  readonly trust: TrustAnchors;
  readonly credentials: Credentials;
  readonly chain: ChainRpcClient;
  readonly prover: ValidInputProver;
  /** spec 4.8 rule 2: the venue cancels this stream's resting orders when it closes. */
  readonly cancelOnDisconnect: boolean;
  /** Narration: one line per thing the trader does or sees. */
  readonly say: (line: string) => void;
}

export interface OrderSpec {
  readonly symbol: string;
  readonly side: Side;
  readonly amount: bigint;
  readonly price: bigint;
}

/** An order whose note is chosen and proved, ready to sign and send. */
export interface ProvedOrder {
  readonly spec: OrderSpec;
  readonly note: WalletNote;
  readonly input: NoteInput;
}

export class DemoTrader {
  readonly name: string;
  readonly cancelOnDisconnect: boolean;
  readonly deposits: DemoDeposit[] = [];
  readonly events: DemoEvent[] = [];
  readonly fills: DemoFill[] = [];
  readonly #failures: Error[] = [];
  readonly #options: DemoTraderOptions;
  readonly #dir: string;
  readonly #keyFile: KeyFile;
  readonly #client: VenueClient;
  readonly #wallet: NoteWallet;
  readonly #trader: Trader;
  readonly #stream: VenueStream;
  readonly #placed = new Map<string, { spec: OrderSpec; collateral?: bigint }>();
  readonly #instruments: ReadonlyMap<string, Instrument>;

  private constructor(
    options: DemoTraderOptions,
    parts: {
      dir: string;
      keyFile: KeyFile;
      client: VenueClient;
      wallet: NoteWallet;
      trader: Trader;
      stream: VenueStream;
      instruments: ReadonlyMap<string, Instrument>;
    },
  ) {
    this.name = options.name;
    this.cancelOnDisconnect = options.cancelOnDisconnect;
    this.#options = options;
    this.#dir = parts.dir;
    this.#keyFile = parts.keyFile;
    this.#client = parts.client;
    this.#wallet = parts.wallet;
    this.#trader = parts.trader;
    this.#stream = parts.stream;
    this.#instruments = parts.instruments;
    // The Trader's listeners come first: the wallet has moved when the narration reads it.
    this.#trader.follow(this.#stream);
    this.#stream.on('order', (event) => this.#guard(() => this.#onOrder(event)));
    this.#stream.on('fill', (message) => this.#guard(() => this.#onFill(message)));
  }

  /** Keys, attested connection, login, wallet, trader and stream; on failure nothing stays open. */
  static async open(options: DemoTraderOptions): Promise<DemoTrader> {
    const dir = await mkdtemp(join(tmpdir(), `venue-demo-${options.name}-`));
    const opened: Array<() => unknown> = [() => rm(dir, { recursive: true, force: true })];
    try {
      const keyFile = await KeyFile.create(join(dir, 'key.json'));
      const client = await connectVenue({ url: options.url, trust: options.trust });
      opened.push(() => client.close());
      await client.login(options.credentials);
      const instruments = new Map((await client.instruments()).map((i) => [i.symbol, i]));
      const wallet = await NoteWallet.open(keyFile, dir);
      opened.push(() => wallet.close());
      const trader = Trader.open(client, keyFile, dir, { wallet });
      opened.push(() => trader.close());
      const stream = await client.openStream({
        channels: ['orders', 'fills'],
        cancelOnDisconnect: options.cancelOnDisconnect,
      });
      options.say(
        `${options.name}: attested the venue (measurement ${client.report.measurement.slice(0, 16)}…), logged in, stream open${options.cancelOnDisconnect ? ' with cancel on disconnect' : ''}`,
      );
      return new DemoTrader(options, { dir, keyFile, client, wallet, trader, stream, instruments });
    } catch (error) {
      for (const close of opened.reverse()) await close();
      throw error;
    }
  }

  /** What went wrong inside a stream listener or the wallet (a memo that would not open). */
  get failures(): Error[] {
    return [...this.#failures, ...this.#trader.walletErrors];
  }

  get client(): VenueClient {
    return this.#client;
  }

  instrument(symbol: string): Instrument {
    const instrument = this.#instruments.get(symbol);
    if (instrument === undefined) throw new Error(`the venue lists no ${symbol} market`);
    return instrument;
  }

  /** A new note in the wallet (its opening recorded first), then the chain deposit. Returns its slot. */
  async deposit(mint: string, value: bigint): Promise<bigint> {
    // The SDK's deposit path: the opening is recorded first, bound to the notes package's authority.
    const { note, receipt } = await this.#wallet.depositVia(this.#options.chain.url, { mint, value });
    this.deposits.push({ mint, value, commitment: note.commitment, leaf_index: receipt.leaf_index });
    return receipt.slot;
  }

  /** Reads the public trees for this wallet's notes. */
  async scan(): Promise<void> {
    await this.#wallet.scan(this.#client);
  }

  /**
   * Picks the smallest spendable note that pays for the order and proves it (VALID_INPUT, bound to
   * the trading key). A note worth more than the order costs is named as collateral.
   */
  async prove(spec: OrderSpec): Promise<ProvedOrder> {
    const instrument = this.instrument(spec.symbol);
    const cost = nominalCost(spec, instrument);
    const mint = spentMintOf(spec.side, instrument);
    const note = this.#wallet.pick(mint, cost);
    if (note === undefined) throw new Error(`${this.name} holds no spendable note of ${cost} ${mint}`);
    const proved = await this.#wallet.input(
      note,
      this.#keyFile.publicParts.trading_key,
      this.#client,
      this.#options.prover,
    );
    return { spec, note, input: note.value === cost ? proved : { ...proved, collateral_amount: note.value } };
  }

  /** Signs, records and sends the order over the stream; its note is reserved while it lives. */
  async place(order: ProvedOrder): Promise<string> {
    // The Trader reserves the note for the order before it signs and sends it.
    const placed = await this.#trader.place({ ...order.spec, input: order.input }, this.#stream);
    this.#placed.set(placed.order_id, {
      spec: order.spec,
      ...(order.input.collateral_amount === undefined ? {} : { collateral: order.input.collateral_amount }),
    });
    const { symbol, side, amount, price } = order.spec;
    this.#options.say(
      `${this.name}: placed ${symbol} ${side} ${amount} at ${price} (order ${placed.order_id.slice(0, 8)}…)`,
    );
    return placed.order_id;
  }

  /** The order's state as this trader's local view has it. */
  state(orderId: string): string {
    return this.#trader.orders.get(orderId)?.state ?? 'unknown';
  }

  fillsOf(orderId: string): DemoFill[] {
    return this.fills.filter((fill) => fill.order_id === orderId);
  }

  /** Closes the stream: with cancel on disconnect, the venue cancels its resting orders. */
  async disconnect(): Promise<void> {
    await this.#stream.close();
    this.#options.say(`${this.name}: closed the stream`);
  }

  /** Replaces the local view of every open order by the venue's record (its note follows). */
  async reconcile(): Promise<void> {
    await this.#trader.reconcile();
  }

  orders(): DemoOrder[] {
    return [...this.#placed].map(([orderId, { spec, collateral }]) => {
      const local = this.#trader.orders.get(orderId);
      return {
        order_id: orderId,
        symbol: spec.symbol,
        side: spec.side,
        amount: spec.amount,
        price_limit: spec.price,
        ...(collateral === undefined ? {} : { collateral_amount: collateral }),
        state: local?.state ?? 'unknown',
        filled_quantity: local?.filled_quantity ?? 0n,
      };
    });
  }

  balances() {
    return this.#wallet.balances();
  }

  notes() {
    return this.#wallet
      .notes()
      .filter((note) => note.status !== 'spent')
      .map((note) => ({
        commitment: note.commitment,
        mint: note.mint,
        value: note.value,
        status: note.status,
        tree_id: note.tree_id,
        ...(note.leaf_index === undefined ? {} : { leaf_index: note.leaf_index }),
      }));
  }

  async close(): Promise<void> {
    await this.#stream.close().catch(() => {});
    this.#trader.close();
    this.#wallet.close();
    await this.#client.close();
    await rm(this.#dir, { recursive: true, force: true });
  }

  #onOrder(event: OrderEvent): void {
    const symbol = this.#symbolOf(event.market_id);
    this.events.push({
      order_id: event.order_id,
      symbol,
      kind: event.kind,
      ...(event.match_id === undefined ? {} : { match_id: BigInt(event.match_id) }),
      ...(event.filled_quantity === undefined ? {} : { filled_quantity: event.filled_quantity }),
      ...(event.new_amount === undefined ? {} : { new_amount: event.new_amount }),
      ...(event.new_note_amount === undefined ? {} : { new_note_amount: event.new_note_amount }),
      ...(event.reason === undefined ? {} : { reason: event.reason }),
      ...(event.lock_expiry_slot === undefined ? {} : { lock_expiry_slot: event.lock_expiry_slot }),
    });
    const detail = [
      event.filled_quantity === undefined ? '' : ` filled ${event.filled_quantity}`,
      event.new_amount === undefined ? '' : `, ${event.new_amount} still open`,
      event.reason === undefined ? '' : ` (${event.reason})`,
    ].join('');
    this.#options.say(
      `${this.name} sees: ${symbol} order ${event.order_id.slice(0, 8)}… ${event.kind}${detail}`,
    );
  }

  #onFill(message: FillMessage): void {
    // The Trader's listener already recorded the memo's notes; this reading is for the report.
    const memo = openFillMemoWithKeyFile(message, this.#keyFile);
    const placed = this.#placed.get(message.order_id);
    const symbol = this.#symbolOf(message.market_id);
    const instrument = this.instrument(symbol);
    const side = placed?.spec.side ?? 'bid';
    const paid =
      side === 'bid'
        ? { mint: instrument.quote_mint, amount: memo.quote_amount }
        : { mint: instrument.base_mint, amount: memo.fill_quantity };
    const note = (n: FillMemoPlaintext['received']) => ({
      mint: n.mint,
      amount: n.amount,
      commitment: n.commitment,
    });
    this.fills.push({
      order_id: message.order_id,
      symbol,
      side,
      match_id: BigInt(message.match_id),
      batch_seq: message.batch_seq,
      fill_quantity: memo.fill_quantity,
      quote_amount: memo.quote_amount,
      clearing_price: memo.clearing_price,
      paid,
      received: note(memo.received),
      ...(memo.change === undefined ? {} : { change: note(memo.change) }),
    });
    this.#options.say(
      `${this.name} decrypts a fill memo: ${symbol} ${memo.fill_quantity} at ${memo.clearing_price}, received ${memo.received.amount} in a new note (leaf ${memo.received.leaf_index ?? '?'})`,
    );
  }

  #symbolOf(marketId: string): string {
    for (const instrument of this.#instruments.values()) {
      if (instrument.market_id === marketId) return instrument.symbol;
    }
    return marketId;
  }

  #guard(body: () => void): void {
    try {
      body();
    } catch (error) {
      this.#failures.push(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
