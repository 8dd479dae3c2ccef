import { createHash } from 'node:crypto';
import { assert, VenueError } from '@venue/protocol';
import type { ArtifactName } from './artifacts.ts';
import { fieldFromDigest } from './field.ts';
import type { NoteHasher } from './hash.ts';

/**
 * The public inputs of VALID_MATCH, the settlement circuit (docs/notes.md section 10), in the order
 * the verification key expects them. This module is the one place that layout lives: the prover
 * checks its output against it, the verifier and the chain build the inputs with it.
 *
 * What the chain learns from one proof: the batch it belongs to, the market's assets, price scale
 * and clearing price (a post-trade print), the leg's side, the input's note commitment and
 * note-use tag, the two output commitments (0 for a note of value 0) and the fill tags. No amount,
 * owner commitment or blinding.
 */
export const VALID_MATCH_PUBLIC_INPUTS = [
  'batch_binding',
  'base_asset',
  'quote_asset',
  'price_scale',
  'clearing_price',
  'side',
  'input_anchor',
  'note_use_tag',
  'received_commitment',
  'change_commitment',
  'fill_tags',
] as const;

/**
 * Fill slots of the two VALID_MATCH circuits (docs/notes.md section 10.2): the same template built
 * twice. Most legs fill against one to four counterparties and are proved by the narrow circuit; a
 * leg of five to sixteen fills by the wide one, which costs about 2.5 times as much to prove. A
 * statement carries as many fill tags as its circuit has slots (zero-padded), so its width says
 * which verification key checks it.
 */
export const MATCH_FILLS_NARROW = 4;
export const MATCH_FILLS_WIDE = 16;
/** Most fills one leg may have: a leg of more cannot be proved (MatchRuleError 'fills_max'). */
export const MATCH_FILLS_MAX = MATCH_FILLS_WIDE;
/** The circuit widths, narrow first. */
export const MATCH_WIDTHS = [MATCH_FILLS_NARROW, MATCH_FILLS_WIDE] as const;
export type MatchWidth = (typeof MATCH_WIDTHS)[number];

/** The artifacts of each VALID_MATCH circuit, by its width (fill slots). */
export const MATCH_CIRCUIT_ARTIFACTS = {
  4: { wasm: 'matchWasm', zkey: 'matchZkey', vkey: 'matchVkey' },
  16: { wasm: 'matchWideWasm', zkey: 'matchWideZkey', vkey: 'matchWideVkey' },
} as const satisfies Record<MatchWidth, { wasm: ArtifactName; zkey: ArtifactName; vkey: ArtifactName }>;

/** The narrowest circuit that proves a leg of `fills` fills (1 to MATCH_FILLS_MAX). */
export function matchWidthOf(fills: number): MatchWidth {
  assert(
    Number.isInteger(fills) && fills >= 0 && fills <= MATCH_FILLS_MAX,
    `a leg has 0 to ${MATCH_FILLS_MAX} fills, received ${fills}`,
  );
  return fills <= MATCH_FILLS_NARROW ? MATCH_FILLS_NARROW : MATCH_FILLS_WIDE;
}

/** The width of a statement: how many fill tags it carries (4 or 16; anything else is a bug). */
export function matchWidthOfStatement(statement: MatchStatement): MatchWidth {
  const width = statement.fillTags.length;
  assert(
    width === MATCH_FILLS_NARROW || width === MATCH_FILLS_WIDE,
    `a statement carries ${MATCH_FILLS_NARROW} or ${MATCH_FILLS_WIDE} fill tags, received ${width}`,
  );
  return width;
}

/**
 * A leg's fill tags as its statement carries them: zero-padded to the narrowest width that holds
 * them. The chain gets a leg's tags without the padding (settlement message v2) and pads them so.
 */
export function padFillTags(tags: readonly bigint[]): bigint[] {
  const width = matchWidthOf(tags.length);
  return [...tags, ...new Array<bigint>(width - tags.length).fill(0n)];
}

/** How many field elements the verification key of a width takes. */
export function matchPublicInputCount(width: MatchWidth): number {
  return VALID_MATCH_PUBLIC_INPUTS.length - 1 + width;
}

/** How many field elements the narrow circuit's verification key takes. */
export const VALID_MATCH_PUBLIC_INPUT_COUNT = matchPublicInputCount(MATCH_FILLS_NARROW);

/** Domain constants of the two hashes this circuit adds to docs/notes.md section 2. */
export const MATCH_DOMAIN = { batchBinding: 39n, fillTag: 40n } as const;

/** What every leg of one settlement batch shares (the chain knows each of these values itself). */
export interface MatchBatchHeader {
  /** The market's base58 address (chain-sim MarketAccount.market_id). */
  readonly marketId: string;
  readonly batchSeq: bigint;
  readonly deadlineSlot: bigint;
  readonly baseAssetId: bigint;
  readonly quoteAssetId: bigint;
  /** u64, at least 1: a price P means P / priceScale quote units per base unit. */
  readonly priceScale: bigint;
  /** u64: the batch's uniform clearing price, public as a post-trade print. */
  readonly clearingPrice: bigint;
}

/** The public statement of one leg's proof, as the chain checks it. */
export interface MatchStatement {
  readonly batchBinding: bigint;
  readonly baseAssetId: bigint;
  readonly quoteAssetId: bigint;
  readonly priceScale: bigint;
  readonly clearingPrice: bigint;
  readonly side: 'bid' | 'ask';
  /** The input note's commitment: the chain checks it is a leaf under a root of its window. */
  readonly inputCommitment: bigint;
  readonly noteUseTag: bigint;
  /** Commitment of what the fill bought; 0 when it is worth nothing (no note is appended). */
  readonly receivedCommitment: bigint;
  /** Commitment of the change; 0 when the input is spent out. */
  readonly changeCommitment: bigint;
  /** MATCH_FILLS_NARROW or MATCH_FILLS_WIDE tags (the circuit's width); 0 marks an unused slot. */
  readonly fillTags: readonly bigint[];
}

const MARKET_TAG = 'venue-market-v1\u0000';

/** The field element naming a market: sha256("venue-market-v1\0" || base58 address), 253 bits. */
export function marketField(marketId: string): bigint {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(marketId)) {
    throw new VenueError('INVALID_FORMAT', `market id: expected a base58 address, received ${marketId}`);
  }
  return fieldFromDigest(createHash('sha256').update(MARKET_TAG).update(marketId, 'ascii').digest());
}

/**
 * Poseidon(39, market, batch_seq, deadline_slot): a proof made for one batch verifies for no other
 * market, sequence number or deadline, so it cannot be replayed into another batch.
 */
export function batchBinding(hasher: NoteHasher, header: MatchBatchHeader): bigint {
  return hasher.poseidon([
    MATCH_DOMAIN.batchBinding,
    marketField(header.marketId),
    header.batchSeq,
    header.deadlineSlot,
  ]);
}

/** The statement's public inputs in VALID_MATCH_PUBLIC_INPUTS order, for the key of its width. */
export function matchPublicInputs(statement: MatchStatement): bigint[] {
  const width = matchWidthOfStatement(statement);
  const inputs = [
    statement.batchBinding,
    statement.baseAssetId,
    statement.quoteAssetId,
    statement.priceScale,
    statement.clearingPrice,
    statement.side === 'bid' ? 0n : 1n,
    statement.inputCommitment,
    statement.noteUseTag,
    statement.receivedCommitment,
    statement.changeCommitment,
    ...statement.fillTags,
  ];
  assert(inputs.length === matchPublicInputCount(width), 'one input per verification-key slot');
  return inputs;
}
