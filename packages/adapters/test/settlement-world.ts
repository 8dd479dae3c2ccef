/**
 * A small world for the settlement pipeline's tests and benchmark: a chain simulator whose slots
 * are the venue's clock, a venue engine (no HTTP) with the SOL-USDC test market listed on both,
 * the pipeline with its tree feed and telemetry, and wallets that deposit real Poseidon notes and
 * place orders against them. Proofs are not involved: the engine receives verified commands.
 */
import {
  createSettlementPipeline,
  NoteOpenings,
  RootMirror,
  type Settlement,
  SettlementMetrics,
  type VenueClock,
  VenueEngine,
} from '@venue/adapters';
import {
  accountAddress,
  type ChainSimulator,
  createChainSimulator,
  settlementChainOf,
  spendAuthorityOf,
  treeReads,
} from '@venue/chain-sim';
import type { CoreEvent, OrderEvent } from '@venue/core';
import {
  assetIdOfMint,
  createNote,
  type DerivedNote,
  fieldToHex,
  generateViewingKey,
  loadNoteHasher,
  type NoteHasher,
  type ViewingKeyPair,
} from '@venue/notes';
import { generateTradingKey, type PlaceOrder, type TradingKey } from '@venue/protocol';
import { placeCommand, TEST_CORE_CONFIG, TEST_SESSION, testListing, testMarket } from '@venue/testing';

export const MARKET = testMarket('SOL-USDC');
/** Oracle price and the price every test order uses (quote units per base x price scale 1000). */
export const PRICE = 1500n;

export interface Wallet {
  readonly accountId: string;
  readonly spendingKey: bigint;
  readonly owner: bigint;
  readonly viewing: ViewingKeyPair;
}

export interface Published {
  readonly channel: 'fills' | 'tree';
  readonly message: Record<string, unknown>;
  readonly accountId: string | undefined;
}

export interface WorldOptions {
  readonly finalityDepth?: number;
  readonly lockDurationSlots?: bigint;
  readonly batchLegsMax?: number;
}

export class SettlementWorld {
  readonly orderEvents: OrderEvent[] = [];
  readonly published: Published[] = [];
  readonly openings = new NoteOpenings();
  readonly metrics = new SettlementMetrics();
  settlement: Settlement;
  #nextId = 0;

  private constructor(
    readonly chain: ChainSimulator,
    readonly signer: TradingKey,
    readonly hasher: NoteHasher,
    readonly engine: VenueEngine,
    readonly clock: VenueClock,
    readonly options: WorldOptions,
  ) {
    engine.onEvents((events: readonly CoreEvent[]) => {
      for (const event of events) if (event.type === 'order') this.orderEvents.push(event);
    });
    this.settlement = this.newPipeline();
  }

  static async create(options: WorldOptions = {}): Promise<SettlementWorld> {
    const hasher = await loadNoteHasher();
    const signer = generateTradingKey();
    const chain = await createChainSimulator({
      shards: TEST_CORE_CONFIG.treeCount,
      finalityDepth: options.finalityDepth ?? 4,
      governance: {
        authority: generateTradingKey().publicKey,
        measurement: 'ab'.repeat(32),
        settlement_signer: signer.publicKey,
      },
    });
    const oracle = accountAddress('oracle', MARKET.symbol);
    chain.updateOracle({ address: oracle, price: PRICE, confidence: 1n });
    chain.createMarket({
      market_id: MARKET.marketId,
      symbol: MARKET.symbol,
      base_mint: MARKET.baseMint,
      quote_mint: MARKET.quoteMint,
      tick_size: MARKET.tickSize,
      min_size: MARKET.minSize,
      price_scale: MARKET.priceScale,
      oracle,
    });
    chain.advance(10);
    // The venue's slots are the chain's: lock expiries and deadlines mean the same slot on both.
    const clock: VenueClock = {
      nowMs: () => 1_800_000_000_000 + Number(chain.slot) * 400,
      slot: () => chain.slot,
      finalizedSlot: () => chain.finalizedSlot(),
      slotDurationMs: 400,
    };
    const engine = VenueEngine.fresh(
      {
        ...TEST_CORE_CONFIG,
        noteCommitment: hasher.noteCommitment,
        lockDurationSlots: options.lockDurationSlots ?? 20n,
      },
      clock,
      TEST_SESSION,
    );
    await engine.addMarket(testListing(MARKET));
    engine.record({ type: 'oracle_price', marketId: MARKET.marketId, price: PRICE });
    const mirror = new RootMirror(engine, chain, TEST_CORE_CONFIG.treeCount);
    mirror.refresh();
    chain.onEvent((event) => {
      if (event.kind !== 'settlement') mirror.refresh();
    });
    return new SettlementWorld(chain, signer, hasher, engine, clock, options);
  }

  /** A pipeline over this world's engine and chain (a second one stands for a rebooted venue). */
  newPipeline(): Settlement {
    return createSettlementPipeline({
      engine: this.engine,
      chain: settlementChainOf(this.chain, this.signer),
      hasher: this.hasher,
      openings: this.openings,
      clock: this.clock,
      metrics: this.metrics,
      publisher: {
        publish: (channel, message, accountId) => this.published.push({ channel, message, accountId }),
      },
      trees: treeReads(this.chain),
      ...(this.options.batchLegsMax === undefined ? {} : { batchLegsMax: this.options.batchLegsMax }),
    });
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
      session_id: TEST_SESSION,
      ...(note.value === (side === 'bid' ? (amount * PRICE) / MARKET.priceScale : amount)
        ? {}
        : { collateral_amount: note.value }),
    };
  }

  /** Places an order as intake would: its proof verified (opening remembered), then sequenced. */
  async place(wallet: Wallet, order: PlaceOrder): Promise<void> {
    this.openings.rememberOrder(order);
    await this.engine.submit(placeCommand(order, this.chain.slot, wallet.accountId));
  }

  /** Produces slots one at a time (each is a beat of the pipeline). */
  advance(slots: number): void {
    for (let i = 0; i < slots; i += 1) this.chain.advance(1);
  }

  eventsOf(orderId: string): OrderEvent[] {
    return this.orderEvents.filter((event) => event.orderId === orderId);
  }

  kindsOf(orderId: string): string[] {
    return this.eventsOf(orderId).map((event) => event.kind);
  }

  /** Per mint, what the vault holds equals what the unconsumed notes hold. */
  conserved(): boolean {
    return [...this.chain.audit().values()].every((entry) => entry.vault === entry.notes);
  }
}
