// Properties over random runs of deposits, trades, withdrawals (whole or with change), merges, slots
// and reorgs: per mint, the pool's vault always equals the value of the unconsumed notes (settlement,
// change and merge outputs valued by the openings their owners reveal to the audit: the chain holds
// only their commitments), and a consumed note can never be spent again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ChainError } from '../src/index.ts';
import { BASE, type HeldNote, PRICE_SCALE, QUOTE, revealOf, type Wallet, world } from './fixtures.ts';

type Op =
  | { kind: 'deposit'; wallet: number; asset: 'base' | 'quote'; value: bigint }
  | { kind: 'trade'; bid: number; ask: number; base: bigint; price: bigint }
  | { kind: 'withdraw'; note: number; quarters: number }
  | { kind: 'merge'; note: number; count: number }
  | { kind: 'advance'; slots: number }
  | { kind: 'reorg'; depth: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('deposit' as const),
    wallet: fc.nat(2),
    asset: fc.constantFrom('base' as const, 'quote' as const),
    value: fc.bigInt(1n, 1000n),
  }),
  fc.record({
    kind: fc.constant('trade' as const),
    bid: fc.nat(),
    ask: fc.nat(),
    base: fc.bigInt(1n, 1000n),
    price: fc.bigInt(1n, 1000n),
  }),
  fc.record({
    kind: fc.constant('withdraw' as const),
    note: fc.nat(),
    quarters: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({ kind: fc.constant('merge' as const), note: fc.nat(), count: fc.integer({ min: 2, max: 3 }) }),
  fc.record({ kind: fc.constant('advance' as const), slots: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('reorg' as const), depth: fc.integer({ min: 0, max: 3 }) }),
);

test('value is conserved per mint and no note is spent twice, whatever the sequence', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 18 }), async (ops) => {
      const w = await world({ finalityDepth: 4, rootWindow: 8 });
      const { chain } = w;
      const wallets = [w.wallet(1), w.wallet(2), w.wallet(3)];
      const known: { held: HeldNote; wallet: Wallet }[] = [];
      const live = (asset: bigint) =>
        known.filter(
          ({ held }) =>
            held.note.assetId === asset &&
            chain.locate(held.note.hex.commitment) !== undefined &&
            chain.consumedEntry(held.note.hex.noteUseTag) === undefined &&
            !chain.isLocked(held.note.hex.noteUseTag),
        );
      for (const step of ops) {
        if (step.kind === 'deposit') {
          const wallet = wallets[step.wallet] as Wallet;
          known.push({ held: w.deposit(wallet, step.asset, step.value), wallet });
        } else if (step.kind === 'trade') {
          const bids = live(QUOTE);
          const asks = live(BASE);
          const bid = bids[step.bid % Math.max(bids.length, 1)];
          const ask = asks[step.ask % Math.max(asks.length, 1)];
          if (bid === undefined || ask === undefined) continue;
          // As much as both notes allow: the ask's base, and the base the bid's quote pays for.
          const affordable = (bid.held.note.value * PRICE_SCALE) / step.price;
          const base = [step.base, ask.held.note.value, affordable].reduce((a, b) => (a < b ? a : b));
          if (base === 0n) continue;
          w.lock([bid.held, ask.held], chain.slot + 10n);
          const plan = w.plan(bid.held, ask.held, base, step.price);
          const record = chain.submitSettlement(w.batchOf(plan));
          assert.equal(record.state, 'landed', record.message);
          plan.settled.forEach((leg, i) => {
            const wallet = (i === 0 ? bid : ask).wallet;
            for (const note of [leg.received, leg.change]) {
              if (note.value > 0n) known.push({ held: { note, treeId: plan.outputTree }, wallet });
            }
          });
        } else if (step.kind === 'withdraw') {
          const entry = known[step.note % Math.max(known.length, 1)];
          if (entry === undefined || chain.locate(entry.held.note.hex.commitment) === undefined) continue;
          const { held, wallet } = entry;
          const spentBefore = chain.consumedEntry(held.note.hex.noteUseTag) !== undefined;
          // A quarter to all of the note leaves; the rest stays as change.
          const value = (held.note.value * BigInt(step.quarters) + 3n) / 4n;
          const { request, output } = await w.withdrawal(wallet, held, { value });
          if (spentBefore) {
            assert.throws(
              () => chain.withdraw(request),
              (e: unknown) => e instanceof ChainError && e.reason === 'note_consumed',
            );
          } else if (!chain.isLocked(held.note.hex.noteUseTag)) {
            chain.withdraw(request);
            if (output !== null) known.push({ held: output, wallet });
          }
        } else if (step.kind === 'merge') {
          const entry = known[step.note % Math.max(known.length, 1)];
          if (entry === undefined) continue;
          const { wallet } = entry;
          const notes = live(entry.held.note.assetId)
            .filter((other) => other.wallet === wallet)
            .slice(0, step.count)
            .map((other) => other.held);
          if (notes.length < 2) continue;
          const { request, output } = await w.merging(wallet, notes);
          chain.merge(request);
          assert.ok(output);
          known.push({ held: output, wallet });
        } else if (step.kind === 'advance') {
          chain.advance(step.slots);
        } else {
          const target = chain.slot - BigInt(step.depth);
          if (target >= chain.finalizedSlot()) chain.rollbackTo(target);
        }
        for (const [mint, totals] of chain.audit(known.map(({ held }) => revealOf(held)))) {
          assert.equal(totals.vault, totals.notes, `${mint} is conserved`);
          assert.equal(totals.hidden, 0, 'every note is revealed');
        }
      }
    }),
    { numRuns: 60 },
  );
});
