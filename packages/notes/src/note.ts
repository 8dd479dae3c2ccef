import { createHash } from 'node:crypto';
import { type Side, VenueError } from '@venue/protocol';
import { fieldFromDigest, fieldFromHex, fieldToHex, randomFieldElement } from './field.ts';
import { DOMAIN, type NoteHasher } from './hash.ts';

/**
 * A collateral note (docs/notes.md section 2). What makes it up:
 * - `ownerCommitment`: Poseidon(32, spending_key); whoever knows the key may spend the note;
 * - `assetId`: which token the note holds (assetIdOfMint of the token's mint);
 * - `blinding`: a random field element that makes the note unique and hides it;
 * - `value`: the amount, a u64 in the token's base units.
 * Everything else is derived from these four.
 */
export interface Note {
  readonly ownerCommitment: bigint;
  readonly assetId: bigint;
  readonly blinding: bigint;
  readonly value: bigint;
}

/** A note with its derived hashes, as field elements and as wire hex. */
export interface DerivedNote extends Note {
  /** Poseidon(33, asset_id, blinding): independent of the value (spec 2.1 note_inner_hash). */
  readonly innerHash: bigint;
  /** Poseidon(34, owner_commitment, inner_hash, value): the tree leaf (spec 2.1 note_commitment). */
  readonly commitment: bigint;
  /** Poseidon(35, owner_commitment, inner_hash): keys the consumed entry and the lock (spec 3.2). */
  readonly noteUseTag: bigint;
  readonly hex: {
    readonly ownerCommitment: string;
    readonly innerHash: string;
    readonly commitment: string;
    readonly noteUseTag: string;
  };
}

/** Derives a note's hashes. */
export function deriveNote(hasher: NoteHasher, note: Note): DerivedNote {
  const innerHash = hasher.innerHash(note.assetId, note.blinding);
  const commitment = hasher.commitment(note.ownerCommitment, innerHash, note.value);
  const noteUseTag = hasher.noteUseTag(note.ownerCommitment, innerHash);
  return {
    ownerCommitment: note.ownerCommitment,
    assetId: note.assetId,
    blinding: note.blinding,
    value: note.value,
    innerHash,
    commitment,
    noteUseTag,
    hex: {
      ownerCommitment: fieldToHex(note.ownerCommitment),
      innerHash: fieldToHex(innerHash),
      commitment: fieldToHex(commitment),
      noteUseTag: fieldToHex(noteUseTag),
    },
  };
}

/** A fresh note for a deposit: the blinding comes from node:crypto unless one is given. */
export function createNote(
  hasher: NoteHasher,
  fields: { ownerCommitment: bigint; assetId: bigint; value: bigint; blinding?: bigint },
): DerivedNote {
  return deriveNote(hasher, { ...fields, blinding: fields.blinding ?? randomFieldElement() });
}

/** What the venue knows about the note an order spends: the order's own fields (spec 2.1). */
export interface SpentNote {
  /** owner_commitment of the order, hex. */
  readonly ownerCommitment: string;
  /** note_inner_hash of the order, hex. */
  readonly innerHash: string;
}

/**
 * The change note of a partial fill (spec 3.1 `partially_filled`, `new_note_amount`): same owner,
 * same asset, the residual value, and the blinding Poseidon(36, parent inner_hash). The enclave
 * derives it from the order alone; the owner derives the same blinding from its own note, so it
 * can spend the change without being told a secret. A note is consumed once (its tag), so it has
 * at most one change note, and the chain of derivations never repeats a blinding.
 */
export function deriveChangeNote(
  hasher: NoteHasher,
  parent: SpentNote,
  assetId: bigint,
  changeValue: bigint,
): DerivedNote {
  return derivedChild(hasher, parent, DOMAIN.changeBlinding, assetId, changeValue);
}

/**
 * The note that receives what a fill bought (the other asset of the market), owned by the same
 * owner, blinding Poseidon(37, parent inner_hash). Distinct from the change note by its domain.
 */
export function deriveFillNote(
  hasher: NoteHasher,
  parent: SpentNote,
  receivedAssetId: bigint,
  receivedValue: bigint,
): DerivedNote {
  return derivedChild(hasher, parent, DOMAIN.fillBlinding, receivedAssetId, receivedValue);
}

function derivedChild(
  hasher: NoteHasher,
  parent: SpentNote,
  domain: bigint,
  assetId: bigint,
  value: bigint,
): DerivedNote {
  const parentInner = fieldFromHex(parent.innerHash, 'note_inner_hash');
  return deriveNote(hasher, {
    ownerCommitment: fieldFromHex(parent.ownerCommitment, 'owner_commitment'),
    assetId,
    blinding: hasher.poseidon([domain, parentInner]),
    value,
  });
}

const ASSET_TAG = 'venue-asset-v1\u0000';
const BINDING_TAG = 'venue-valid-input-binding-v1\u0000';

/**
 * The field element naming a token: sha256("venue-asset-v1\0" || mint address as ASCII base58),
 * truncated to 253 bits. The same mint always gives the same id, in the SDK, venue and chain.
 */
export function assetIdOfMint(mint: string): bigint {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(mint)) {
    throw new VenueError(
      'INVALID_FORMAT',
      `mint: expected a base58 address, received ${JSON.stringify(mint)}`,
    );
  }
  return fieldFromDigest(createHash('sha256').update(ASSET_TAG).update(mint, 'ascii').digest());
}

/** The mint an order's note must hold: quote for a bid (it pays quote), base for an ask. */
export function spentMint(side: Side, market: { baseMint: string; quoteMint: string }): string {
  return side === 'bid' ? market.quoteMint : market.baseMint;
}

/**
 * The VALID_INPUT `binding` of an order: sha256("venue-valid-input-binding-v1\0" || trading key
 * bytes), truncated to 253 bits. It ties a proof to the trading key that signs the order, so a
 * proof copied out of one order cannot back another key's order (docs/notes.md section 4).
 */
export function bindingOfTradingKey(tradingKey: string): bigint {
  if (!/^[0-9a-f]{64}$/.test(tradingKey)) {
    throw new VenueError('INVALID_HEX', 'field `trading_key`: expected 64 lowercase hex characters');
  }
  return fieldFromDigest(
    createHash('sha256').update(BINDING_TAG).update(Buffer.from(tradingKey, 'hex')).digest(),
  );
}
