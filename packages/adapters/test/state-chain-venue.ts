/**
 * A persistent venue on one chain across boots, for the state-against-chain tests
 * (chain-state-check.ts, docs/durability.md): the whole HTTPS server with its journal (real files,
 * fsync) in a temp state directory, the real settlement pipeline with its state check, and the chain
 * simulator, which outlives every boot, as a chain does. The settlement signer stays the same key
 * across boots (a served venue's is sealed). Orders reach the engine as verified commands (as in
 * settlement-world.ts); the HTTPS port is there to show what a client sees.
 */
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assembleVenue,
  type CheckStatus,
  createBootIdentity,
  type LandedBatches,
  type NoteOpenings,
  type Settlement,
  type VenueClock,
  type VenueServer,
} from '@venue/adapters';
import { type ChainSimulator, venueChainPortsOf } from '@venue/chain-sim';
import {
  assetIdOfMint,
  createNote,
  createStandInMatchProver,
  type DerivedNote,
  fieldToHex,
  generateViewingKey,
  loadNoteHasher,
  type NoteHasher,
} from '@venue/notes';
import {
  assert,
  generateTradingKey,
  type PlaceOrder,
  PlaceOrderSchema,
  signPlaceOrder,
  type TradingKey,
  wireJsonText,
} from '@venue/protocol';
import { type Exchange, httpsCall, placeCommand, TEST_CORE_CONFIG, testListing } from '@venue/testing';
import { MARKET, PRICE, settlingChain } from './settlement-world.ts';

export { MARKET };
export const FINALITY = 3;

export interface BootOptions {
  /** chain.accept_state_mismatch */
  readonly acceptMismatch?: boolean;
}

/** One boot of the venue over the world's state directory and chain. */
export interface Booted {
  readonly server: VenueServer;
  readonly settlement: Settlement;
  readonly landed: LandedBatches;
  readonly openings: NoteOpenings;
  readonly sessionId: string;
  readonly port: number;
  readonly certPem: string;
  /** Operator lines the state check logged. */
  readonly logs: string[];
  readonly checkState: CheckStatus['state'];
  /** Stops the pipeline and the server; the journal is durable when this resolves. */
  close(): Promise<void>;
}

export class StateChainWorld {
  #nextOrder = 0;
  /** Boots not closed yet: dispose closes them, so a failed assertion cannot keep the process alive. */
  readonly #open = new Set<Booted>();

  private constructor(
    readonly chain: ChainSimulator,
    readonly signer: TradingKey,
    readonly hasher: NoteHasher,
    readonly clock: VenueClock,
    readonly directory: string,
    readonly sealingKey: Buffer,
    readonly snapshotIntervalRecords: number,
    readonly finality: number,
  ) {}

  static async create(snapshotIntervalRecords = 1_000_000, finality = FINALITY): Promise<StateChainWorld> {
    const hasher = await loadNoteHasher();
    const signer = generateTradingKey();
    const { chain, clock } = await settlingChain(signer, finality);
    const directory = await mkdtemp(join(tmpdir(), 'state-chain-'));
    return new StateChainWorld(
      chain,
      signer,
      hasher,
      clock,
      join(directory, 'state'),
      randomBytes(32),
      snapshotIntervalRecords,
      finality,
    );
  }

  /** Boots the venue from the state directory (empty or not), reconciles, listens on HTTPS. */
  async boot(options: BootOptions = {}): Promise<Booted> {
    const identity = await createBootIdentity();
    const logs: string[] = [];
    const venue = await assembleVenue(
      {
        clock: this.clock,
        // Proofs are not this test's subject: each passes, and its note opening is remembered.
        proofs: { checks: { check: async () => {} } },
        hasher: this.hasher,
        roots: this.chain,
        chain: venueChainPortsOf(this.chain, this.signer, createStandInMatchProver(this.hasher)),
        log: (line) => logs.push(line),
        front: { identity, log: { level: 'silent' } },
      },
      {
        core: { ...TEST_CORE_CONFIG, noteCommitment: this.hasher.noteCommitment, lockDurationSlots: 20n },
        markets: [testListing(MARKET)],
        settles: true,
        proofMode: 'groth16',
        state: {
          directory: this.directory,
          sealingKey: this.sealingKey,
          snapshotIntervalRecords: this.snapshotIntervalRecords,
        },
        ...(options.acceptMismatch === undefined ? {} : { acceptStateMismatch: options.acceptMismatch }),
      },
    );
    const { server, settlement, companions } = venue;
    assert(settlement !== null, 'the state-chain world settles');
    server.engine.record({ type: 'oracle_price', marketId: MARKET.marketId, price: PRICE });
    await server.engine.settled();
    const { port } = await server.http.listen({ host: '127.0.0.1', port: 0 });
    const open = this.#open;
    const booted: Booted = {
      server,
      settlement,
      landed: companions.landed,
      openings: companions.openings,
      sessionId: identity.sessionId,
      port,
      certPem: identity.certPem,
      logs,
      get checkState() {
        return venue.stateCheck;
      },
      async close() {
        if (!open.delete(booted)) return;
        await venue.stop();
      },
    };
    open.add(booted);
    return booted;
  }

  /** Produces slots one at a time; after each, everything applied is durable and its events are out. */
  async advance(venue: Booted, slots: number): Promise<void> {
    for (let i = 0; i < slots; i += 1) {
      this.chain.advance(1);
      venue.server.engine.catchUp();
      await venue.server.engine.settled();
    }
  }

  /** The newest batch the chain landed for the market (-1 for none). */
  chainLast(): bigint {
    return this.chain.market(MARKET.marketId).next_batch_seq - 1n;
  }

  /**
   * A crossing bid and ask (real notes deposited on the chain) sequenced on `venue`: the next slot
   * matches them and the pipeline submits their batch, which lands in the slot after.
   */
  async cross(venue: Booted): Promise<void> {
    const buyer = this.#owner();
    const seller = this.#owner();
    const quote = this.#deposit(buyer, MARKET.quoteMint, 15_000n);
    const base = this.#deposit(seller, MARKET.baseMint, 10n);
    await this.advance(venue, 1);
    await this.#place(venue, quote, 'bid', 'acct-buyer');
    await this.#place(venue, base, 'ask', 'acct-seller');
  }

  /** Crosses a pair and waits until its batch is final and its outcome durable; returns its number. */
  async settleOne(venue: Booted): Promise<bigint> {
    const before = this.chainLast();
    await this.cross(venue);
    // Bounded: match, lock, seal, land, then FINALITY slots; a few spare.
    for (let slot = 0; slot < 4 + this.finality * 2; slot += 1) {
      await this.advance(venue, 1);
      if (this.chainLast() > before && venue.server.engine.core.pendingMatches().length === 0) break;
    }
    const after = this.chainLast();
    if (after !== before + 1n) throw new Error(`expected one new batch, chain went ${before} -> ${after}`);
    if (venue.server.engine.core.pendingMatches().length !== 0) throw new Error('matches still pending');
    return after;
  }

  /** Places a signed order over real HTTPS as a new trader of this boot, logged in. */
  async placeOverHttps(venue: Booted): Promise<Exchange> {
    const trader = await venue.server.provision('trader', 'state check');
    const login = await httpsCall(venue.port, venue.certPem, '/auth/token', {
      method: 'POST',
      body: JSON.stringify({
        api_key: trader.api_key,
        api_secret: trader.api_secret,
        passphrase: trader.passphrase,
      }),
    });
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
    const token = (JSON.parse(login.text) as { access_token: string }).access_token;
    const key = generateTradingKey();
    const note = this.#deposit(this.#owner(), MARKET.quoteMint, 15_000n);
    await this.advance(venue, 1);
    const body = this.#order(note, 'bid', venue.sessionId);
    const signed = signPlaceOrder({ ...body, trading_key: key.publicKey }, key);
    return httpsCall(venue.port, venue.certPem, '/orders', {
      method: 'POST',
      token,
      body: wireJsonText(PlaceOrderSchema, signed),
    });
  }

  /** Copies the whole state directory (journal, snapshots, head, accounts), as a backup would. */
  async copyState(): Promise<string> {
    const copy = `${this.directory}-copy-${randomBytes(4).toString('hex')}`;
    await cp(this.directory, copy, { recursive: true });
    return copy;
  }

  /** Puts a copy back in place of the state directory, whole. */
  async restoreState(copy: string): Promise<void> {
    await rm(this.directory, { recursive: true, force: true });
    await cp(copy, this.directory, { recursive: true });
  }

  async wipeState(): Promise<void> {
    await rm(this.directory, { recursive: true, force: true });
  }

  async dispose(): Promise<void> {
    for (const venue of [...this.#open]) await venue.close();
    await rm(join(this.directory, '..'), { recursive: true, force: true });
  }

  #owner(): bigint {
    this.#nextOrder += 1;
    return this.hasher.ownerCommitment(0x5eed_0000n + BigInt(this.#nextOrder));
  }

  #deposit(owner: bigint, mint: string, value: bigint): DerivedNote {
    const note = createNote(this.hasher, { ownerCommitment: owner, assetId: assetIdOfMint(mint), value });
    this.chain.deposit({
      tree_id: 0,
      mint,
      value,
      owner_commitment: note.hex.ownerCommitment,
      blinding: fieldToHex(note.blinding),
      spend_authority: generateTradingKey().publicKey,
    });
    return note;
  }

  #order(note: DerivedNote, side: 'bid' | 'ask', sessionId: string): PlaceOrder {
    this.#nextOrder += 1;
    const amount = 10n;
    return {
      symbol: MARKET.symbol,
      side,
      order_type: 'limit',
      amount,
      price_limit: PRICE,
      expiry_slot: this.chain.slot + 400n,
      order_id: this.#nextOrder.toString(16).padStart(32, '0'),
      note_commitment: note.hex.commitment,
      arrival_nonce: BigInt(this.#nextOrder),
      // One key per order: two orders under one key would be a self-trade, which never matches.
      trading_key: this.#nextOrder.toString(16).padStart(64, '0'),
      trading_key_signature: '00'.repeat(64),
      owner_commitment: note.hex.ownerCommitment,
      note_inner_hash: note.hex.innerHash,
      merkle_root: this.chain.currentRoot(0).root,
      valid_input_proof: '00'.repeat(256),
      viewing_pubkey: generateViewingKey().publicKey,
      session_id: sessionId,
      ...(note.value === (side === 'bid' ? (amount * PRICE) / MARKET.priceScale : amount)
        ? {}
        : { collateral_amount: note.value }),
    };
  }

  /** As intake would once the proof verified: sequenced (the note opening is remembered as it books). */
  async #place(venue: Booted, note: DerivedNote, side: 'bid' | 'ask', accountId: string): Promise<void> {
    const order = this.#order(note, side, venue.sessionId);
    await venue.server.engine.submit(placeCommand(order, this.chain.slot, accountId));
  }
}
