/**
 * What the settlement chain says about a bot's wallet, read through the chain's public reads only:
 * where a commitment sits (`locate`), whether a note-use tag is consumed (`consumedEntry`) and the
 * per-mint totals of unconsumed notes and vaults (`audit`). The chain never says whose a note is;
 * the wallet's openings do (a commitment binds its owner), so the two together pin it down.
 */
import assert from 'node:assert/strict';
import type { ChainSimulator } from '@venue/chain-sim';
import type { NoteHasher } from '@venue/notes';
import type { NoteWallet } from '../../src/index.ts';

/**
 * Checks every note of `wallet` against the chain and returns the value it holds per mint.
 * - a held note (spendable or reserved) is an unconsumed leaf exactly where the wallet says;
 * - a spent note is consumed on chain (the wallet never drops a note the chain still holds);
 * - nothing is pending: every deposit and settlement output has been seen in the tree.
 */
export function auditWallet(
  chain: ChainSimulator,
  hasher: NoteHasher,
  wallet: NoteWallet,
  ownerCommitment: string,
  label: string,
): Map<string, bigint> {
  const held = new Map<string, bigint>();
  for (const note of wallet.notes()) {
    const where = `${label} note ${note.commitment} (${note.status}, ${note.origin?.role ?? 'deposit'})`;
    const consumed = chain.consumedEntry(hasher.noteUseTagHex(ownerCommitment, note.inner_hash));
    assert.notEqual(note.status, 'pending', `${where}: still pending at the end`);
    if (note.status === 'spent') {
      assert.ok(consumed !== undefined, `${where}: spent in the wallet, unconsumed on chain`);
      continue;
    }
    assert.deepEqual(
      chain.locate(note.commitment),
      { tree_id: note.tree_id, leaf_index: note.leaf_index },
      `${where}: the chain holds it elsewhere or not at all`,
    );
    assert.equal(consumed, undefined, `${where}: held by the wallet, consumed on chain`);
    held.set(note.mint, (held.get(note.mint) ?? 0n) + note.value);
  }
  return held;
}

/** Per mint: the sum of several wallets' holdings. */
export function sumByMint(holdings: readonly Map<string, bigint>[]): Map<string, bigint> {
  const total = new Map<string, bigint>();
  for (const held of holdings) {
    for (const [mint, value] of held) total.set(mint, (total.get(mint) ?? 0n) + value);
  }
  return total;
}

/**
 * The chain's unconsumed note value per mint, checked equal to its vaults (value is conserved). The
 * chain holds settlement outputs as bare commitments, so the wallets show it their openings (what a
 * withdraw would reveal); a note none of them can open is counted as hidden and fails the check.
 */
export function chainNoteValue(
  chain: ChainSimulator,
  wallets: readonly { readonly wallet: NoteWallet; readonly ownerCommitment: string }[],
): Map<string, bigint> {
  const revealed = wallets.flatMap(({ wallet, ownerCommitment }) =>
    wallet
      // Spent notes too: the chain tells a consumed note by its tag, which it derives from the opening.
      .notes()
      .map((note) => ({
        commitment: note.commitment,
        owner_commitment: ownerCommitment,
        note_inner_hash: note.inner_hash,
        value: note.value,
      })),
  );
  const notes = new Map<string, bigint>();
  for (const [mint, { vault, notes: value, hidden }] of chain.audit(revealed)) {
    assert.equal(hidden, 0, `mint ${mint}: ${hidden} unconsumed notes no wallet can open`);
    assert.equal(value, vault, `mint ${mint}: unconsumed notes ${value}, vault ${vault}`);
    if (value > 0n) notes.set(mint, value);
  }
  return notes;
}
