import { U64_MAX } from '@venue/protocol';
import { FIELD_MODULUS, fieldToHex } from './field.ts';
import type { NoteHasher } from './hash.ts';
import {
  batchBinding,
  MATCH_DOMAIN,
  MATCH_FILLS_MAX,
  type MatchBatchHeader,
  type MatchStatement,
  padFillTags,
} from './match-public-inputs.ts';
import { type DerivedNote, deriveChangeNote, deriveFillNote } from './note.ts';

/**
 * The rules VALID_MATCH proves, in plain TypeScript (docs/notes.md section 10): the reference the
 * circuit is tested against, and what the venue runs before it spends time proving a leg.
 *
 * A leg is one order's part in one settlement batch: it spends one input note and creates what the
 * fills bought and the change, both owned by the input's owner. Each fill against one counterparty
 * moves `baseAmount` of base for `quoteAmount` = floor(baseAmount x clearingPrice / priceScale) of
 * quote (decisions section 2), and shows a public fill tag that the counterparty's leg shows too.
 */

/** The input note as the enclave holds it: the order's owner commitment and inner hash, the value. */
export interface MatchOpening {
  readonly ownerCommitment: bigint;
  readonly innerHash: bigint;
  readonly value: bigint;
}

/** One fill of the leg against one counterparty; both legs of a fill carry the same values. */
export interface MatchFill {
  readonly baseAmount: bigint;
  readonly quoteAmount: bigint;
  /** A random field element chosen by the venue per fill: hides the amounts in the public tag. */
  readonly salt: bigint;
}

export interface MatchLeg {
  readonly side: 'bid' | 'ask';
  readonly input: MatchOpening;
  readonly fills: readonly MatchFill[];
}

/** A rule of the leg, named as the tests and errors name it. */
export type MatchRule =
  | 'fills_max' // at most MATCH_FILLS_MAX (16) fills per leg
  | 'amount_u64' // every amount and the input value are u64
  | 'quote_floor' // quoteAmount = floor(baseAmount x price / scale)
  | 'overspend' // the leg pays at most its input's value
  | 'header'; // price and scale are u64, scale at least 1

/** Thrown when a leg breaks a rule: the venue built a wrong leg (a bug), never a user's fault. */
export class MatchRuleError extends Error {
  constructor(readonly rules: readonly MatchRule[]) {
    super(`the match leg breaks ${rules.join(', ')} (docs/notes.md section 10)`);
    this.name = 'MatchRuleError';
  }
}

const isU64 = (value: bigint): boolean => value >= 0n && value <= U64_MAX;

/** floor(base x price / scale), exact (decisions section 2). */
export function quoteOfFill(baseAmount: bigint, price: bigint, scale: bigint): bigint {
  return (baseAmount * price) / scale;
}

/** What a leg pays and receives in total: a bid pays quote and receives base, an ask the reverse. */
export function legTotals(leg: MatchLeg): { paid: bigint; received: bigint } {
  let base = 0n;
  let quote = 0n;
  for (const fill of leg.fills) {
    base += fill.baseAmount;
    quote += fill.quoteAmount;
  }
  return leg.side === 'bid' ? { paid: quote, received: base } : { paid: base, received: quote };
}

/** The rules a leg breaks, in MatchRule order; empty for a leg the circuit can prove. */
export function brokenMatchRules(header: MatchBatchHeader, leg: MatchLeg): MatchRule[] {
  const broken = new Set<MatchRule>();
  if (!isU64(header.clearingPrice) || !isU64(header.priceScale) || header.priceScale < 1n) {
    broken.add('header');
    return [...broken];
  }
  if (leg.fills.length > MATCH_FILLS_MAX) broken.add('fills_max');
  const { paid, received } = legTotals(leg);
  const amounts = leg.fills.flatMap((fill) => [fill.baseAmount, fill.quoteAmount]);
  if (![leg.input.value, received, ...amounts].every(isU64)) broken.add('amount_u64');
  for (const fill of leg.fills) {
    if (fill.quoteAmount !== quoteOfFill(fill.baseAmount, header.clearingPrice, header.priceScale)) {
      broken.add('quote_floor');
    }
  }
  if (paid > leg.input.value) broken.add('overspend');
  return [...broken];
}

/** Poseidon(40, batch_binding, salt, base, quote): the public tag both legs of one fill show. */
export function fillTag(hasher: NoteHasher, binding: bigint, fill: MatchFill): bigint {
  return hasher.poseidon([MATCH_DOMAIN.fillTag, binding, fill.salt, fill.baseAmount, fill.quoteAmount]);
}

/** A leg with its statement and the two notes it creates (value 0: not created). */
export interface SettledLeg {
  readonly statement: MatchStatement;
  readonly received: DerivedNote;
  readonly change: DerivedNote;
}

/**
 * The statement of an honest leg and its output notes, as the circuit computes them: the fill note
 * (blinding Poseidon(37, inner)) holds what the fills bought in the other asset, the change note
 * (blinding Poseidon(36, inner)) what is left of the input in the asset paid. The fill tags are
 * padded to the narrowest circuit that holds them (4, or 16 for five fills or more). Throws
 * MatchRuleError for a leg that breaks a rule.
 */
export function settleLeg(hasher: NoteHasher, header: MatchBatchHeader, leg: MatchLeg): SettledLeg {
  const broken = brokenMatchRules(header, leg);
  if (broken.length > 0) throw new MatchRuleError(broken);
  return deriveLeg(hasher, header, leg);
}

/**
 * settleLeg without the rule check: what a leg's statement would be if the circuit took it. For
 * tests that hand the circuit a broken leg; throws VenueError OUT_OF_RANGE for a value outside u64.
 */
export function deriveLeg(hasher: NoteHasher, header: MatchBatchHeader, leg: MatchLeg): SettledLeg {
  const binding = batchBinding(hasher, header);
  const { paid, received } = legTotals(leg);
  const bid = leg.side === 'bid';
  const parent = {
    ownerCommitment: fieldToHex(leg.input.ownerCommitment),
    innerHash: fieldToHex(leg.input.innerHash),
  };
  const receivedNote = deriveFillNote(
    hasher,
    parent,
    bid ? header.baseAssetId : header.quoteAssetId,
    received,
  );
  const changeNote = deriveChangeNote(
    hasher,
    parent,
    bid ? header.quoteAssetId : header.baseAssetId,
    leg.input.value - paid,
  );
  const commitmentOrZero = (note: DerivedNote): bigint => (note.value === 0n ? 0n : note.commitment);
  const tags = leg.fills.map((fill) => fillTag(hasher, binding, fill));
  return {
    statement: {
      batchBinding: binding,
      baseAssetId: header.baseAssetId,
      quoteAssetId: header.quoteAssetId,
      priceScale: header.priceScale,
      clearingPrice: header.clearingPrice,
      side: leg.side,
      inputCommitment: hasher.commitment(leg.input.ownerCommitment, leg.input.innerHash, leg.input.value),
      noteUseTag: hasher.noteUseTag(leg.input.ownerCommitment, leg.input.innerHash),
      receivedCommitment: commitmentOrZero(receivedNote),
      changeCommitment: commitmentOrZero(changeNote),
      fillTags: padFillTags(tags),
    },
    received: receivedNote,
    change: changeNote,
  };
}

/**
 * The chain's rule across the legs of one batch: every non-zero fill tag appears exactly once in a
 * bid's statement and exactly once in an ask's. With each leg's proof, that makes the batch conserve
 * both assets: every fill's base leaves an ask and reaches a bid, and its quote the reverse, with the
 * same amounts on both sides (the tag binds them). Returns null when the rule holds, else why not.
 */
export function fillPairingFault(statements: readonly MatchStatement[]): string | null {
  const seen = new Map<bigint, { bid: number; ask: number }>();
  for (const statement of statements) {
    for (const tag of statement.fillTags) {
      if (tag === 0n) continue;
      const count = seen.get(tag) ?? { bid: 0, ask: 0 };
      count[statement.side] += 1;
      seen.set(tag, count);
    }
  }
  for (const [tag, count] of seen) {
    if (count.bid !== 1 || count.ask !== 1) {
      return `fill tag ${fieldToHex(tag)} appears in ${count.bid} bid and ${count.ask} ask legs, not one of each`;
    }
  }
  return null;
}

/** A field element for a value that may be negative in a broken witness (the circuit refuses it). */
export function fieldOfSigned(value: bigint): bigint {
  return ((value % FIELD_MODULUS) + FIELD_MODULUS) % FIELD_MODULUS;
}
