import { assetIdOfMint, type DerivedNote, deriveChangeNote, deriveFillNote, fieldToHex } from '@venue/notes';
import type { FillMemoPlaintext, MemoNote, OrderEventKind } from '@venue/protocol';
import {
  candidateCommitments,
  expectedOutputs,
  type FillFacts,
  isKnownEmpty,
  noteOfOutput,
  type Owner,
  outputKey,
} from './inferred-outputs.ts';
import type { NoteBook, WalletRecord } from './note-book.ts';
import { consumedByFill, type NoteOrigin, released, type WalletNote } from './note-lifecycle.ts';

/**
 * What a settled match does to the owner's notes (docs/settlement.md section 1 step 3): the note
 * backing the order is consumed and up to two notes appear, the change (same mint, what is left)
 * and the received note (the other mint). Both blindings derive from the parent's inner hash, so
 * the owner re-derives each note and checks its commitment before keeping it: a memo or event can
 * only ever add notes this wallet can open and spend.
 *
 * The two sources may arrive in either order and more than once (stream, reconcile, a cancel
 * reply): every function here returns the records to write, and nothing when the facts are known.
 * - An orders-channel event moves the backing note: `partially_filled` spends it and derives the
 *   change from `new_note_amount` (reserved: the remainder rests on it); `fully_filled` spends it
 *   (or frees it, if it is already the change of that very match); an end without a fill frees it.
 *   A record whose filled quantity rose past what the bot saw (cancelled, expired, pending
 *   settlement again, failed) shows a match the wallet missed: its note is spent and its change
 *   and received notes inferred, as for a fill (missedMatch).
 * - A fill memo (the only source of the received amount, and of a full fill's change) adds the
 *   received note and the change, and spends the parent if no event did yet.
 */

/** An order fact the wallet follows: an orders-channel event, a reconciled record or a refusal. */
export interface OrderOutcome {
  readonly order_id: string;
  /** `refused`: the venue never booked the order (a place refused with the venue's error). */
  readonly kind: OrderEventKind | 'resting' | 'refused';
  readonly match_id?: bigint;
  readonly new_note_amount?: bigint;
  readonly lock_expiry_slot?: bigint;
  /**
   * What the event or record says about the match (with the order's side, limit and market), so
   * that its outputs can be found without the fill memo (inferred-outputs.ts).
   */
  readonly fill?: FillFacts;
}

const TERMINAL_KINDS: ReadonlySet<OrderOutcome['kind']> = new Set([
  'fully_filled',
  'settlement_failed',
  'cancelled',
  'expired',
  'refused',
]);

/** The records an order outcome implies (none when the wallet holds nothing of the order). */
export function recordsForOutcome(book: NoteBook, owner: Owner, outcome: OrderOutcome): WalletRecord[] {
  const orderId = outcome.order_id;
  if (book.hasEnded(orderId)) return [];
  const backing = book.backing(orderId);
  const records: WalletRecord[] = [];
  const put = (note: WalletNote) => records.push({ kind: 'note', note });
  const matchId = outcome.match_id;
  if (outcome.kind === 'partially_filled' && matchId !== undefined) {
    for (const note of backing) {
      if (isOutputOf(note, orderId, matchId)) continue; // the memo of this match came first
      put(consumedByFill(note, orderId, matchId));
      if (outcome.fill !== undefined) {
        records.push(...recordsForMissedMemo(book, owner, note, orderId, matchId, outcome.fill));
      }
      const amount = outcome.new_note_amount ?? 0n;
      if (amount === 0n || book.outputOf(orderId, matchId, 'change') !== undefined) continue;
      const change = deriveChangeNote(owner.hasher, parentOf(owner, note), assetIdOfMint(note.mint), amount);
      put({
        ...fromDerived(change, note.tree_id, note.mint, {
          order_id: orderId,
          match_id: matchId,
          role: 'change',
        }),
        status: 'reserved',
        reserved_by: orderId,
      });
    }
    return records;
  }
  const missed = missedMatch(outcome);
  const unheard = (note: WalletNote) =>
    missed !== undefined &&
    note.commitment !== missed.facts.change_commitment &&
    !isOutputOf(note, orderId, missed.key);
  if (!TERMINAL_KINDS.has(outcome.kind)) {
    // The order matched again after a match the wallet missed: it rests on that match's change.
    for (const note of backing) {
      if (missed === undefined || !unheard(note)) continue;
      put(consumedByFill(note, orderId, missed.key));
      records.push(...recordsForMissedMemo(book, owner, note, orderId, missed.key, missed.facts));
    }
    return records;
  }
  const lock = outcome.kind === 'settlement_failed' ? outcome.lock_expiry_slot : undefined;
  for (const note of backing) {
    if (outcome.kind === 'fully_filled' && !(matchId !== undefined && isOutputOf(note, orderId, matchId))) {
      put(consumedByFill(note, orderId, matchId ?? 0n));
      if (outcome.fill !== undefined && matchId !== undefined) {
        records.push(...recordsForMissedMemo(book, owner, note, orderId, matchId, outcome.fill, {}));
      }
    } else if (missed !== undefined && unheard(note)) {
      // The order ended resting on the change of a match the wallet missed: that change is free.
      put(consumedByFill(note, orderId, missed.key));
      const ended = { ...(lock === undefined ? {} : { lock }) };
      records.push(...recordsForMissedMemo(book, owner, note, orderId, missed.key, missed.facts, ended));
    } else {
      put(released(note, lock));
    }
  }
  if (book.knowsOrder(orderId)) records.push({ kind: 'order_end', order_id: orderId });
  return records;
}

/**
 * A match the wallet missed, shown by a record whose filled quantity rose past what the bot saw
 * (the fill events handle their own rise). A cancelled or expired order's last match (match_id) is
 * the missed one. A pending_settlement or settlement_failed record names the match after it, so
 * the missed match's own id is unknown: it is keyed -(match_id + 1), an id no venue match has, and
 * a memo that arrives later still finds its parent by derivation. Two missed matches in a row look
 * like one and cannot be worked out (docs/sdk.md).
 */
function missedMatch(outcome: OrderOutcome): { key: bigint; facts: FillFacts } | undefined {
  const { fill: facts, match_id: matchId } = outcome;
  if (facts === undefined || matchId === undefined || (facts.base_quantity ?? 0n) <= 0n) return undefined;
  if (outcome.kind === 'cancelled' || outcome.kind === 'expired') return { key: matchId, facts };
  if (outcome.kind === 'pending_settlement' || outcome.kind === 'settlement_failed') {
    return { key: -(matchId + 1n), facts };
  }
  return undefined;
}

/**
 * The outputs of a match known from its event or record alone, recorded as expected until the
 * memo or the tree search (NoteWallet.scan) gives each its note. A change the record names by
 * commitment is found at once among its candidate values: reserved while the order rests on it,
 * free (pending its leaf, locked until `ended.lock` after a failed settlement) when the order
 * `ended` resting on it. Outputs already held or already expected are left as they are.
 */
function recordsForMissedMemo(
  book: NoteBook,
  owner: Owner,
  parent: WalletNote,
  orderId: string,
  matchId: bigint,
  facts: FillFacts,
  ended?: { readonly lock?: bigint },
): WalletRecord[] {
  const records: WalletRecord[] = [];
  for (const output of expectedOutputs(parent, orderId, matchId, facts)) {
    if (book.outputOf(orderId, matchId, output.role) !== undefined) continue;
    if (book.expected(outputKey(output)) !== undefined) continue;
    const named = facts.change_commitment;
    const value =
      output.role === 'change' && named !== undefined
        ? candidateCommitments(owner, output).get(named)
        : undefined;
    if (value === undefined) {
      records.push({ kind: 'expected', output });
      continue;
    }
    const note = noteOfOutput(owner, output, value);
    const lock = ended?.lock === undefined ? {} : { locked_until_slot: ended.lock };
    records.push({
      kind: 'note',
      note:
        ended === undefined
          ? { ...note, status: 'reserved', reserved_by: orderId }
          : { ...note, status: 'pending', ...lock },
    });
  }
  return records;
}

/**
 * The records a decrypted fill memo implies. Throws when no note of this wallet derives the memo's
 * received note: the memo is then not about a note this wallet owns, and nothing is recorded.
 */
export function recordsForMemo(
  book: NoteBook,
  owner: Owner,
  orderId: string,
  matchId: bigint,
  memo: FillMemoPlaintext,
): WalletRecord[] {
  const { received, change } = memo;
  // An output the memo leaves empty was maybe expected from the event: it is settled as empty.
  const emptied = emptyOutputs(book, orderId, matchId, {
    received: received.amount,
    change: change?.amount ?? 0n,
  });
  // Nothing was bought and nothing is left (an exact note, a fill worth no quote): no note to add,
  // and the event alone consumes the parent.
  if (received.amount === 0n && (change === undefined || change.amount === 0n)) return emptied;
  // The parent is the note whose derivations give the memo's notes (either may be empty).
  const parent = book
    .parentsOf(orderId, matchId)
    .find(
      (note) =>
        derives(owner, note, received, deriveFillNote) ||
        (change !== undefined && derives(owner, note, change, deriveChangeNote)),
    );
  if (parent === undefined) {
    throw new Error(
      `fill memo of order ${orderId} match ${matchId}: no note of this wallet derives the notes it names`,
    );
  }
  const records: WalletRecord[] = [...emptied];
  const put = (note: WalletNote) => records.push({ kind: 'note', note });
  if (parent.status === 'reserved') put(consumedByFill(parent, orderId, matchId));
  // Each memo note must derive from the spent note: a memo cannot hand the wallet a note it cannot spend.
  const derived = (memoNote: MemoNote, role: 'received' | 'change') => {
    const derive = role === 'received' ? deriveFillNote : deriveChangeNote;
    if (!derives(owner, parent, memoNote, derive)) {
      throw new Error(
        `fill memo of order ${orderId} match ${matchId}: its ${role} note does not derive from the spent note`,
      );
    }
    const note = derive(owner.hasher, parentOf(owner, parent), assetIdOfMint(memoNote.mint), memoNote.amount);
    return fromDerived(note, memoNote.tree_id, memoNote.mint, origin(orderId, matchId, role));
  };
  if (received.amount > 0n && book.note(received.commitment) === undefined) {
    put({ ...derived(received, 'received'), status: 'pending' });
  }
  if (change !== undefined && change.amount > 0n && book.note(change.commitment) === undefined) {
    const base = derived(change, 'change');
    // Until the wallet learns the order ended, the remainder may rest on this change (spec 3.1).
    put(
      book.hasEnded(orderId)
        ? { ...base, status: 'pending' }
        : { ...base, status: 'reserved', reserved_by: orderId },
    );
  }
  return records;
}

/** Expected outputs of the match that the memo shows to hold nothing, recorded as known empty. */
function emptyOutputs(
  book: NoteBook,
  orderId: string,
  matchId: bigint,
  amounts: Record<NoteOrigin['role'], bigint>,
): WalletRecord[] {
  const records: WalletRecord[] = [];
  for (const role of ['received', 'change'] as const) {
    const output = book.expected(outputKey({ order_id: orderId, match_id: matchId, role }));
    if (output === undefined || amounts[role] > 0n || isKnownEmpty(output)) continue;
    records.push({ kind: 'expected', output: { ...output, rule: { kind: 'exact', value: 0n } } });
  }
  return records;
}

function origin(orderId: string, matchId: bigint, role: NoteOrigin['role']): NoteOrigin {
  return { order_id: orderId, match_id: matchId, role };
}

function isOutputOf(note: WalletNote, orderId: string, matchId: bigint): boolean {
  return note.origin?.order_id === orderId && note.origin.match_id === matchId;
}

function parentOf(owner: Owner, note: WalletNote) {
  return { ownerCommitment: owner.ownerCommitment, innerHash: note.inner_hash };
}

type Derive = typeof deriveFillNote;

function derives(owner: Owner, parent: WalletNote, named: MemoNote, derive: Derive): boolean {
  if (named.amount === 0n) return false;
  try {
    return (
      derive(owner.hasher, parentOf(owner, parent), assetIdOfMint(named.mint), named.amount).hex
        .commitment === named.commitment
    );
  } catch {
    return false; // a malformed mint in the memo: nothing to derive
  }
}

function fromDerived(
  note: DerivedNote,
  treeId: number,
  mint: string,
  noteOrigin: NoteOrigin,
): Omit<WalletNote, 'status'> {
  return {
    commitment: note.hex.commitment,
    tree_id: treeId,
    mint,
    value: note.value,
    blinding: fieldToHex(note.blinding),
    inner_hash: note.hex.innerHash,
    origin: noteOrigin,
  };
}
