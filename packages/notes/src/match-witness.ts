import { assert } from '@venue/protocol';
import {
  type MatchBatchHeader,
  type MatchStatement,
  matchPublicInputs,
  matchWidthOfStatement,
} from './match-public-inputs.ts';
import { fieldOfSigned, type MatchLeg } from './match-rules.ts';

/**
 * The circuit's input signals for one leg (circuits/lib/valid_match.circom): the statement's public
 * inputs and the leg's private values, for the circuit of the statement's width. Nothing is checked here, so a test can hand the circuit a
 * broken leg and see the witness refused; the prover checks the leg against the rules first.
 */
export interface MatchCircuitInput {
  readonly batch_binding: bigint;
  readonly base_asset: bigint;
  readonly quote_asset: bigint;
  readonly price_scale: bigint;
  readonly clearing_price: bigint;
  readonly side: bigint;
  readonly input_anchor: bigint;
  readonly note_use_tag: bigint;
  readonly received_commitment: bigint;
  readonly change_commitment: bigint;
  readonly fill_tags: readonly bigint[];
  readonly owner: bigint;
  readonly inner: bigint;
  readonly value: bigint;
  readonly used: readonly bigint[];
  readonly base_amounts: readonly bigint[];
  readonly quote_amounts: readonly bigint[];
  readonly remainders: readonly bigint[];
  readonly salts: readonly bigint[];
}

export function matchCircuitInput(
  header: MatchBatchHeader,
  leg: MatchLeg,
  statement: MatchStatement,
): MatchCircuitInput {
  // The statement's width is the circuit's: its fill slots are padded to it.
  const width = matchWidthOfStatement(statement);
  assert(leg.fills.length <= width, `a leg of the ${width}-fill circuit has at most ${width} fills`);
  const pad = (values: readonly bigint[]): bigint[] => [
    ...values,
    ...new Array<bigint>(width - values.length).fill(0n),
  ];
  const [binding, base, quote, scale, price, side, anchor, tag, received, change, ...fillTags] =
    matchPublicInputs(statement);
  return {
    batch_binding: binding ?? 0n,
    base_asset: base ?? 0n,
    quote_asset: quote ?? 0n,
    price_scale: scale ?? 0n,
    clearing_price: price ?? 0n,
    side: side ?? 0n,
    input_anchor: anchor ?? 0n,
    note_use_tag: tag ?? 0n,
    received_commitment: received ?? 0n,
    change_commitment: change ?? 0n,
    fill_tags: fillTags,
    owner: leg.input.ownerCommitment,
    inner: leg.input.innerHash,
    value: fieldOfSigned(leg.input.value),
    used: pad(leg.fills.map(() => 1n)),
    base_amounts: pad(leg.fills.map((fill) => fieldOfSigned(fill.baseAmount))),
    quote_amounts: pad(leg.fills.map((fill) => fieldOfSigned(fill.quoteAmount))),
    // base x price = quote x scale + remainder; a rounded-up quote makes it negative, which the
    // circuit's range check refuses.
    remainders: pad(
      leg.fills.map((fill) =>
        fieldOfSigned(fill.baseAmount * header.clearingPrice - fill.quoteAmount * header.priceScale),
      ),
    ),
    salts: pad(leg.fills.map((fill) => fill.salt)),
  };
}
