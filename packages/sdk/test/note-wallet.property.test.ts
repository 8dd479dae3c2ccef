// The wallet's note lifecycle against a reference model. Random runs of deposits, scans, places
// (claims), partial and full fills delivered in either order (event first or memo first, sometimes
// twice, sometimes with a restart or a scan in between), cancels, expiries, failed settlements and
// restarts of the wallet from its sealed log. After every step: the wallet's balances per mint
// equal the model's, every claim took a free note in the tree (the smallest that covers the order)
// and never one already backing an order, the state machine's invariants hold, and a restart gives
// back exactly the notes it had.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadNoteHasher } from '@venue/notes';
import type { OrderEvent } from '@venue/protocol';
import { testMarket } from '@venue/testing';
import fc from 'fast-check';
import { type Balance, KeyFile, NoteWallet, type WalletNote } from '../src/index.ts';
import { type BackingNote, type Settled, TreeWorld } from './wallet-world.ts';

const MARKET = testMarket('SOL-USDC');
const MINTS = [MARKET.baseMint, MARKET.quoteMint] as const;
const RUNS = Number(process.env['WALLET_RUNS'] ?? 60);

let dir: string;
let keyFile: KeyFile;
let hasher: Awaited<ReturnType<typeof loadNoteHasher>>;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wallet-property-'));
  keyFile = await KeyFile.create(join(dir, 'key.json'));
  hasher = await loadNoteHasher();
});
after(() => rmSync(dir, { recursive: true, force: true }));

// ---- the reference model: lots of value, with no derivation, no tree and no state machine ----

interface Lot {
  mint: string;
  value: bigint;
  inTree: boolean;
  holder: string | null;
  lockedUntil: bigint | undefined;
}

interface ModelOrder {
  backing: BackingNote | undefined; // what the venue rests the order on
  receivedMint: string;
}

class Model {
  readonly lots = new Map<string, Lot>();
  readonly orders = new Map<string, ModelOrder>();

  add(commitment: string, mint: string, value: bigint, holder: string | null): void {
    if (value > 0n) this.lots.set(commitment, { mint, value, inTree: false, holder, lockedUntil: undefined });
  }

  /**
   * A scan sees every leaf: in this world each note's leaf exists once the note does. `unknown`
   * are notes the wallet cannot know yet (a memo not delivered): it finds them at a later scan.
   */
  scanned(unknown: ReadonlySet<string> = new Set()): void {
    for (const [id, lot] of this.lots) if (!unknown.has(id)) lot.inTree = true;
  }

  free(orderId: string, lockedUntil?: bigint): void {
    for (const lot of this.lots.values()) {
      if (lot.holder !== orderId) continue;
      lot.holder = null;
      lot.lockedUntil = lockedUntil;
    }
    this.orders.delete(orderId);
  }

  candidates(mint: string, cost: bigint, slot: bigint): Array<[string, Lot]> {
    return [...this.lots].filter(
      ([, lot]) =>
        lot.mint === mint &&
        lot.value >= cost &&
        lot.holder === null &&
        lot.inTree &&
        (lot.lockedUntil === undefined || slot > lot.lockedUntil),
    );
  }

  balances(): Balance[] {
    const sums = new Map<string, { spendable: bigint; reserved: bigint; pending: bigint; locked: bigint }>();
    for (const lot of this.lots.values()) {
      const sum = sums.get(lot.mint) ?? { spendable: 0n, reserved: 0n, pending: 0n, locked: 0n };
      if (lot.holder !== null) sum.reserved += lot.value;
      else if (!lot.inTree) sum.pending += lot.value;
      else {
        sum.spendable += lot.value;
        if (lot.lockedUntil !== undefined) sum.locked += lot.value;
      }
      sums.set(lot.mint, sum);
    }
    return [...sums].map(([mint, sum]) => ({ mint, ...sum })).sort((a, b) => a.mint.localeCompare(b.mint));
  }
}

// ---- commands ----

type Delivery = 'event_then_memo' | 'memo_then_event' | 'twice' | 'restart_between' | 'scan_between';

type Command =
  | { kind: 'deposit'; mint: 0 | 1; value: number }
  | { kind: 'scan' }
  | { kind: 'place'; mint: 0 | 1; cost: number; refused: boolean }
  | { kind: 'fill'; order: number; paidPermille: number; received: number; full: boolean; delivery: Delivery }
  | { kind: 'end'; order: number; how: 'cancelled' | 'expired' | 'settlement_failed' }
  | { kind: 'tick'; slots: number }
  | { kind: 'restart' };

const mintIndex = fc.constantFrom<0 | 1>(0, 1);
const deposit = fc.record({
  kind: fc.constant('deposit' as const),
  mint: mintIndex,
  value: fc.integer({ min: 1, max: 500 }),
});
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: deposit },
  { weight: 2, arbitrary: fc.constant({ kind: 'scan' as const }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('place' as const),
      mint: mintIndex,
      cost: fc.integer({ min: 1, max: 150 }),
      refused: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('fill' as const),
      order: fc.nat(),
      paidPermille: fc.integer({ min: 0, max: 1000 }),
      received: fc.integer({ min: 0, max: 400 }),
      full: fc.boolean(),
      delivery: fc.constantFrom<Delivery>(
        'event_then_memo',
        'memo_then_event',
        'twice',
        'restart_between',
        'scan_between',
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('end' as const),
      order: fc.nat(),
      how: fc.constantFrom('cancelled' as const, 'expired' as const, 'settlement_failed' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('tick' as const), slots: fc.integer({ min: 1, max: 8 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

class Run {
  readonly model = new Model();
  readonly world: TreeWorld;
  wallet!: NoteWallet;
  slot = 100n;
  #orders = 0;

  constructor(readonly stateDir: string) {
    this.world = new TreeWorld(
      hasher,
      keyFile.publicParts.owner_commitment,
      keyFile.publicParts.viewing_pubkey,
    );
  }

  async open(): Promise<void> {
    this.wallet = await NoteWallet.open(keyFile, this.stateDir);
  }

  async restart(): Promise<void> {
    const before = sortedNotes(this.wallet.notes());
    this.wallet.close();
    await this.open();
    assert.deepEqual(sortedNotes(this.wallet.notes()), before, 'a restart gives back every note as it was');
  }

  async apply(c: Command): Promise<void> {
    switch (c.kind) {
      case 'deposit': {
        const { note } = this.wallet.prepareDeposit({ mint: MINTS[c.mint], value: BigInt(c.value) });
        this.world.append(note.commitment); // the chain accepted the deposit
        this.model.add(note.commitment, note.mint, note.value, null);
        return;
      }
      case 'scan':
        await this.wallet.scan(this.world);
        this.model.scanned();
        return;
      case 'tick':
        this.slot += BigInt(c.slots);
        return;
      case 'restart':
        return this.restart();
      case 'place':
        return this.place(c);
      case 'fill':
        return this.fill(c);
      case 'end':
        return this.end(c);
    }
  }

  place(c: Extract<Command, { kind: 'place' }>): void {
    const mint = MINTS[c.mint];
    const cost = BigInt(c.cost);
    this.#orders += 1;
    const orderId = this.#orders.toString(16).padStart(32, '0');
    const candidates = this.model.candidates(mint, cost, this.slot);
    const claimed = this.wallet.claim(mint, cost, orderId, this.slot);
    if (claimed === undefined) {
      assert.equal(candidates.length, 0, 'a claim finds a note whenever a free one covers the order');
      return;
    }
    const lot = this.model.lots.get(claimed.commitment);
    assert.ok(
      lot !== undefined && candidates.some(([id]) => id === claimed.commitment),
      'the claimed note was free and in the tree',
    );
    assert.equal(
      claimed.value,
      candidates.map(([, l]) => l.value).reduce((a, b) => (a < b ? a : b)),
      'the smallest note that covers',
    );
    lot.holder = orderId;
    if (c.refused) {
      this.wallet.applyOrderOutcome({ order_id: orderId, kind: 'refused' });
      this.model.free(orderId);
      return;
    }
    const input = this.wallet.stubInput(claimed, '00'.repeat(32));
    this.model.orders.set(orderId, {
      backing: {
        commitment: claimed.commitment,
        innerHash: input.note_inner_hash,
        value: claimed.value,
        mint,
      },
      receivedMint: MINTS[1 - c.mint] as string,
    });
  }

  async fill(c: Extract<Command, { kind: 'fill' }>): Promise<void> {
    const entry = this.#openOrder(c.order);
    if (entry === undefined) return;
    const [orderId, order] = entry;
    const note = order.backing as BackingNote;
    // A partial fill leaves change on which the rest rests; a full fill may leave none.
    const full = c.full || note.value === 1n;
    const span = full ? note.value : note.value - 1n;
    const paid = 1n + (BigInt(c.paidPermille) * (span - 1n)) / 1000n;
    const settled = this.world.settle(orderId, note, {
      paid,
      received: BigInt(c.received),
      receivedMint: order.receivedMint,
      full,
    });
    this.#modelFill(orderId, order, settled, full);
    await this.#deliver(settled, c.delivery, full);
  }

  async end(c: Extract<Command, { kind: 'end' }>): Promise<void> {
    const entry = this.#openOrder(c.order);
    if (entry === undefined) return;
    const [orderId] = entry;
    const lock = c.how === 'settlement_failed' ? this.slot + 3n : undefined;
    this.wallet.applyOrderOutcome(this.world.ended(orderId, c.how, lock));
    this.model.free(orderId, lock);
  }

  #openOrder(index: number): [string, ModelOrder] | undefined {
    const open = [...this.model.orders];
    return open.length === 0 ? undefined : open[index % open.length];
  }

  #modelFill(orderId: string, order: ModelOrder, settled: Settled, full: boolean): void {
    this.model.lots.delete(order.backing?.commitment as string);
    const { received, change } = settled.memo;
    this.model.add(received.commitment, received.mint, received.amount, null);
    if (change !== undefined)
      this.model.add(change.commitment, change.mint, change.amount, full ? null : orderId);
    if (full) this.model.orders.delete(orderId);
    else order.backing = settled.next;
  }

  async #deliver(settled: Settled, delivery: Delivery, full: boolean): Promise<void> {
    const event = () => this.wallet.applyOrderOutcome(settled.event as OrderEvent);
    const memo = () => this.wallet.applyFill(settled.message);
    if (delivery === 'memo_then_event') {
      memo();
      event();
    } else {
      event();
      if (delivery === 'restart_between') await this.restart();
      if (delivery === 'scan_between') {
        // The cursor passes the new leaves before the memo names them; only the event's change is known.
        await this.wallet.scan(this.world);
        const { received, change } = settled.memo;
        this.model.scanned(
          new Set([received.commitment, ...(full && change !== undefined ? [change.commitment] : [])]),
        );
      }
      memo();
      if (delivery === 'twice') {
        event();
        memo();
      }
    }
  }

  check(): void {
    this.wallet.validate();
    assert.deepEqual(this.wallet.balances().filter(nonZero), this.model.balances().filter(nonZero));
  }
}

function nonZero(b: Balance): boolean {
  return b.spendable + b.reserved + b.pending > 0n;
}

function sortedNotes(notes: WalletNote[]): WalletNote[] {
  return [...notes].sort((a, b) => a.commitment.localeCompare(b.commitment));
}

test('the wallet follows the reference model through fills, ends and restarts', async () => {
  let runIndex = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(deposit, { minLength: 2, maxLength: 6 }),
      fc.array(command, { minLength: 5, maxLength: 40 }),
      async (prelude, commands) => {
        runIndex += 1;
        const stateDir = join(dir, `run-${runIndex}`);
        const run = new Run(stateDir);
        await run.open();
        try {
          // Notes in the tree first, so that places and fills happen from the first command on.
          for (const c of [...prelude, { kind: 'scan' as const }, ...commands]) {
            await run.apply(c);
            run.check();
          }
          // Finally everything settles into the tree: a scan leaves nothing pending but the free
          // notes the model says are pending (none, since every leaf exists).
          await run.apply({ kind: 'scan' });
          run.check();
        } finally {
          run.wallet.close();
        }
      },
    ),
    { numRuns: RUNS },
  );
});
