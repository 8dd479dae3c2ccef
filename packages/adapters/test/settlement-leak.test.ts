// Issue 19, the leak test: a full settlement (a bid filled partly against two asks, with change on
// every side) over the chain's real JSON-RPC, with real VALID_MATCH proofs the chain verifies. The
// amounts that change hands, the values of the notes settlement creates, their blindings, and the
// owners' commitments are marked; none of them may appear in the settlement messages, the JSON-RPC
// traffic, the chain's transaction log or its ledger. The chain learns commitments, tags, roots,
// sides, the clearing price (a post-trade print) and proofs, nothing else (docs/chain-sim.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CoreEvent, matchEventsOf, matchFills } from '@venue/core';
import { assetIdOfMint, deriveChangeNote, deriveFillNote, fieldToHex, openFillMemo } from '@venue/notes';
import { SettlementWorld } from './settlement-world.ts';

/** Every own property of a value, deep (Maps, Sets, arrays, objects), as one string; no functions. */
function dump(root: unknown): string {
  const seen = new Set<unknown>();
  const parts: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'bigint') parts.push(value.toString(), value.toString(16));
    else if (typeof value === 'string' || typeof value === 'number') parts.push(String(value));
    else if (value instanceof Uint8Array) parts.push(Buffer.from(value).toString('hex'));
    else if (typeof value === 'object' && value !== null && !seen.has(value)) {
      seen.add(value);
      // The hasher's WebAssembly holds no chain state: skip its memories.
      if (value instanceof ArrayBuffer || value.constructor?.name === 'Memory') return;
      if (value instanceof Map) for (const [k, v] of value) walk([k, v]);
      else if (value instanceof Set) for (const v of value) walk(v);
      else for (const key of Object.getOwnPropertyNames(value)) walk((value as Record<string, unknown>)[key]);
    }
  };
  walk(root);
  return parts.join('\n');
}

/** Where `marker` shows in `text`: as a whole decimal or hex number, or as 32-byte hex. */
function occurrences(text: string, marker: bigint | string): string[] {
  const forms =
    typeof marker === 'string'
      ? [marker.toLowerCase()]
      : [marker.toString(), marker.toString(16), marker.toString(16).padStart(16, '0')];
  return forms.filter((form) => new RegExp(`(?<![0-9a-fA-F])${form}(?![0-9a-fA-F])`, 'i').test(text));
}

test('a settled batch shows the chain no amount, output value, blinding or owner commitment', async () => {
  const world = await SettlementWorld.create({ rpc: true, proofs: 'groth16', lockDurationSlots: 400n });
  try {
    await world.waitForProver();
    const matches: CoreEvent[] = [];
    world.engine.onEvents((events) => {
      matches.push(...matchEventsOf(events));
    });
    const buyer = world.wallet('leak-buyer');
    const seller1 = world.wallet('leak-seller-1');
    const seller2 = world.wallet('leak-seller-2');
    const sellers = [seller1, seller2];
    // Values chosen to be unlike anything else on chain (PRICE 1500 at scale 1000).
    const bidNote = world.deposit(buyer, 'quote', 6_100_009n);
    const askNote1 = world.deposit(seller1, 'base', 1_300_001n);
    const askNote2 = world.deposit(seller2, 'base', 2_400_013n);
    world.advance(1);
    await world.place(buyer, world.order(buyer, bidNote, 'bid', 4_000_003n));
    await world.place(seller1, world.order(seller1, askNote1, 'ask', 1_234_567n));
    await world.place(seller2, world.order(seller2, askNote2, 'ask', 2_345_671n));
    let beats = 0;
    while (world.engine.core.pendingMatches().length > 0 || beats === 0) {
      await world.proofsIdle(); // slots wait for the proofs, as the lock window needs on a busy machine
      await world.beat(1);
      beats += 1;
      assert.ok(beats < 2_000, 'the batch settles');
    }
    assert.equal(matches.length, 3, 'one bid leg and two ask legs');
    const filled = world.orderEvents.filter(
      (e) => e.kind === 'partially_filled' || e.kind === 'fully_filled',
    );
    assert.equal(filled.length, 3, 'every leg settled (no settlement_failed)');

    // What settlement created, re-derived as the owners derive it from their memos.
    const memos = world.published.filter((p) => p.channel === 'fills');
    assert.equal(memos.length, 3);
    const markers = new Map<string, bigint | string>();
    for (const event of matches) {
      if (event.type !== 'match') continue;
      for (const fill of matchFills(event)) {
        markers.set(`fill base of match ${event.matchId}`, fill.baseQuantity);
        markers.set(`fill quote of match ${event.matchId}`, fill.quoteAmount);
      }
      markers.set(`quote total of match ${event.matchId}`, event.quoteAmount);
    }
    // Output values, inner hashes and blindings, as each owner learns them: from its fill memo.
    const parents = new Map([
      [buyer.accountId, { wallet: buyer, note: bidNote }],
      [seller1.accountId, { wallet: seller1, note: askNote1 }],
      [seller2.accountId, { wallet: seller2, note: askNote2 }],
    ]);
    for (const published of memos) {
      if (published.channel !== 'fills') continue;
      const { message, accountId } = published;
      const parent = parents.get(accountId);
      assert.ok(parent, 'a memo goes to a trader of the scenario');
      const memo = openFillMemo(
        parent.wallet.viewing.privateKey,
        { orderId: message.order_id, matchId: message.match_id },
        message.memo,
      );
      const spent = {
        ownerCommitment: parent.note.hex.ownerCommitment,
        innerHash: parent.note.hex.innerHash,
      };
      for (const [name, note, derive] of [
        ['received', memo.received, deriveFillNote],
        ['change', memo.change, deriveChangeNote],
      ] as const) {
        if (note === undefined) continue;
        const derived = derive(world.hasher, spent, assetIdOfMint(note.mint), note.amount);
        assert.equal(derived.hex.commitment, note.commitment, 'the memo names the note the owner derives');
        markers.set(`${name} value of ${accountId}`, note.amount);
        markers.set(`${name} inner hash of ${accountId}`, note.inner_hash);
        markers.set(`${name} blinding of ${accountId}`, fieldToHex(derived.blinding));
      }
    }
    for (const wallet of [buyer, ...sellers])
      markers.set(`owner of ${wallet.accountId}`, fieldToHex(wallet.owner));
    assert.ok(markers.size >= 20, 'the scenario marks fills, outputs and owners');

    // The settlement messages travel in this traffic (submitSettlement), with every answer.
    const traffic = world.remote?.proxy.traffic.join('\n') ?? '';
    assert.ok(traffic.includes('submitSettlement'), 'the traffic holds the settlement');
    for (const [name, marker] of markers) {
      assert.deepEqual(occurrences(traffic, marker), [], `${name} appears in the JSON-RPC traffic`);
    }
    // The ledger and transaction log: the owners' deposits disclosed their owner commitments (a
    // deposit moves public tokens in), so only what settlement made is marked there.
    const chainState = dump(world.chain);
    for (const [name, marker] of markers) {
      if (name.startsWith('owner of')) continue;
      assert.deepEqual(occurrences(chainState, marker), [], `${name} appears in the chain's state`);
    }
  } finally {
    await world.close();
  }
});
