import { assetIdOfMint, deriveChangeNote, deriveFillNote, fieldToHex, type NoteHasher } from '@venue/notes';
import type { Side } from '@venue/protocol';
import { CANDIDATE_STEPS_MAX, OUTPUT_VALUES_MAX } from '../limits.ts';
import type { NoteOrigin, WalletNote } from './note-lifecycle.ts';

/**
 * The outputs of a match whose fill memo never arrived (no stream was listening, or the venue
 * recovered the match at boot and sends no memo for it, docs/settlement.md section 4). Both output
 * notes take their blinding from the spent note's inner hash, so the owner can re-derive each one
 * as soon as it knows the value; what the orders channel and GET /orders/{id} carry fixes some
 * values and leaves others open:
 *
 * | side | received note                       | change note                                   |
 * | ---- | ----------------------------------- | --------------------------------------------- |
 * | bid  | base: the match's base quantity     | note value - quote paid; exact from a partial fill's new_note_amount, else one per candidate clearing price |
 * | ask  | quote: one per candidate clearing price | note value - base quantity                |
 *
 * The base quantity is the rise of the order's filled_quantity (exact when one match lies between
 * two things the bot saw). The quote amount is the sum, over the match's counterparties, of
 * floor(fill x clearing_price / price_scale): floor(base x clearing_price / price_scale) for one
 * counterparty, up to k - 1 units less for k (quoteShortfallMax). No event or record carries the
 * clearing price or the fills: only the memo does. The wallet therefore records an ExpectedOutput
 * with a rule for its possible values, and the scan compares the commitment of each candidate with
 * the leaves appended after the spent note; a leaf that matches proves the value, since nobody else
 * can make a commitment to this owner's derived blinding. Candidate clearing prices are the tick
 * multiples on the order's side of its limit (a bid clears at or below it, an ask at or above),
 * nearest the limit first; at each, every quote the core can pay there (candidateValues), at most
 * OUTPUT_VALUES_MAX distinct amounts.
 */

/** Candidate values compared per expected output: 4096 Poseidon hashes, about half a second. */
/** The owner's side of derivation: the Poseidon hasher and the key file's owner commitment (hex). */
export interface Owner {
  readonly hasher: NoteHasher;
  readonly ownerCommitment: string;
}

/** The market terms the values follow from (GET /instruments/{symbol}). */
export interface MarketTerms {
  readonly base_mint: string;
  readonly quote_mint: string;
  readonly tick_size: bigint;
  readonly price_scale: bigint;
}

/** What the orders channel or GET /orders/{id} tell about one match of one order. */
export interface FillFacts {
  readonly side: Side;
  readonly price_limit: bigint;
  readonly market: MarketTerms;
  /** Base units the match traded: the rise of filled_quantity since the bot last saw the order. */
  readonly base_quantity?: bigint;
  /** Value of the change note the rest of the order rests on (partially_filled `new_note_amount`). */
  readonly change_value?: bigint;
  /** The note the order rests on after the match (GET /orders/{id} `note_commitment`), while it rests. */
  readonly change_commitment?: string;
}

/** How the value of an expected output follows from the facts. */
export type ValueRule =
  | { readonly kind: 'exact'; readonly value: bigint }
  | {
      /** floor(base x price / price_scale) over tick multiples, or `minus_from` less it. */
      readonly kind: 'quote';
      readonly base_quantity: bigint;
      readonly side: Side;
      readonly price_limit: bigint;
      readonly tick_size: bigint;
      readonly price_scale: bigint;
      readonly minus_from?: bigint;
    }
  | { readonly kind: 'unknown' };

/** An output note of a match that the wallet knows exists but holds no memo for. */
export interface ExpectedOutput {
  readonly order_id: string;
  readonly match_id: bigint;
  readonly role: NoteOrigin['role'];
  readonly mint: string;
  readonly tree_id: number;
  /** Inner hash of the spent note: both output blindings derive from it. */
  readonly parent_inner_hash: string;
  readonly rule: ValueRule;
  /** Leaves of the shard before this index were already compared (the spent note's leaf + 1 at first). */
  readonly search_from: bigint;
  /** What the facts lack to fix the value (shown by NoteWallet.unresolvedOutputs). */
  readonly missing?: string;
}

/** An output known to hold nothing: its memo or its facts say so (no note exists). */
export function isKnownEmpty(output: ExpectedOutput): boolean {
  return output.rule.kind === 'exact' && output.rule.value <= 0n;
}

/** The key of an output: one change and one received note per order per match. */
export function outputKey(output: Pick<ExpectedOutput, 'order_id' | 'match_id' | 'role'>): string {
  return `${output.order_id}:${output.match_id}:${output.role}`;
}

const CLEARING_PRICE_MISSING = 'the clearing price (no order event or record carries it, only the fill memo)';

/**
 * The outputs of match `matchId` of `orderId` that spent `parent`, as far as `facts` determine
 * them; the change is left out when the caller derives it exactly (`change_value` given).
 */
export function expectedOutputs(
  parent: WalletNote,
  orderId: string,
  matchId: bigint,
  facts: FillFacts,
): ExpectedOutput[] {
  const bid = facts.side === 'bid';
  const { market } = facts;
  // An ask pays base: its change value gives the base quantity even when the fill delta is unsure.
  const base =
    !bid && facts.change_value !== undefined ? parent.value - facts.change_value : facts.base_quantity;
  const known = base !== undefined && base > 0n && (bid || base <= parent.value);
  const quote = (minusFrom?: bigint): ValueRule =>
    known && base !== undefined
      ? {
          kind: 'quote',
          base_quantity: base,
          side: facts.side,
          price_limit: facts.price_limit,
          tick_size: market.tick_size,
          price_scale: market.price_scale,
          ...(minusFrom === undefined ? {} : { minus_from: minusFrom }),
        }
      : { kind: 'unknown' };
  const baseMissing = `the base quantity of match ${matchId} (filled_quantity rose by an unknown or unusable amount)`;
  const shared = {
    order_id: orderId,
    match_id: matchId,
    tree_id: parent.tree_id,
    parent_inner_hash: parent.inner_hash,
    search_from: parent.leaf_index === undefined ? 0n : parent.leaf_index + 1n,
  };
  const received: ExpectedOutput = {
    ...shared,
    role: 'received',
    mint: bid ? market.base_mint : market.quote_mint,
    ...(bid
      ? known && base !== undefined
        ? { rule: { kind: 'exact', value: base } }
        : { rule: { kind: 'unknown' }, missing: baseMissing }
      : { rule: quote(), missing: known ? CLEARING_PRICE_MISSING : baseMissing }),
  };
  if (facts.change_value !== undefined) return [received];
  const change: ExpectedOutput = {
    ...shared,
    role: 'change',
    mint: parent.mint,
    ...(bid
      ? { rule: quote(parent.value), missing: known ? CLEARING_PRICE_MISSING : baseMissing }
      : known && base !== undefined
        ? { rule: { kind: 'exact', value: parent.value - base } }
        : { rule: { kind: 'unknown' }, missing: baseMissing }),
  };
  return [received, change];
}

/** The values an output may hold (see candidateValues). */
export interface Candidates {
  /** Positive values, nearest the limit price first. */
  readonly values: bigint[];
  /** Whether `values` is every value the rule allows. */
  readonly complete: boolean;
  /** Whether the rule allows nothing at all: then no note exists (the chain stores no empty note). */
  readonly mayBeEmpty: boolean;
}

/**
 * The most quote units one match at `price` can pay below floor(base x price / scale), or -1 when
 * no fill moves quote at that price (the core passes such a pair over).
 *
 * The core floors each counterparty's fill on its own and sums them (core batch/run-batch.ts
 * applyFills; auction/quote.ts): k fills of q_1..q_k base units (q_i >= 1, one fill per pair and
 * batch) pay sum floor(q_i x p / s) = F - d, with F = floor(B x p / s). Each fill loses the
 * fraction (q_i x p mod s) / s, a multiple of g / s with g = gcd(p, s), so at most (s - g) / s;
 * the losses add up to d + r / s, with r = B x p mod s. Hence d x s + r <= k x (s - g), where k is
 * at most B / ceil(s / p) (each fill moves at least one quote unit, so holds ceil(s / p) base) and
 * at most F - d (the quote paid). The condition only tightens as d grows, so it bounds d from
 * above; every shortfall from 0 to that bound is a candidate. The bound is necessary, not always
 * reached (it ignores how the counterparties' sizes must add up), so a few candidates can be
 * values no batch produces: each costs one hash and is never a leaf.
 */
export function quoteShortfallMax(base: bigint, price: bigint, scale: bigint): bigint {
  const full = (base * price) / scale;
  if (full < 1n || base < 1n) return -1n;
  const rest = (base * price) % scale;
  const lossMax = scale - gcd(price, scale); // in 1/scale quote units, per fill
  const fillsMax = base / ((scale + price - 1n) / price); // >= 1: B x p >= s
  // d x s + r <= min(fillsMax, full - d) x lossMax; d = 0 always holds (r <= s - g, a multiple of g).
  // While full - d >= fillsMax the fills are bounded by fillsMax, beyond by the quote paid.
  const byQuote = (full * lossMax - rest) / (scale + lossMax);
  if (byQuote >= full - fillsMax) return byQuote;
  const byFills = (fillsMax * lossMax - rest) / scale;
  return byFills < full - fillsMax ? byFills : full - fillsMax;
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/**
 * The values an output may hold under `rule`. For a quote: at each tick price on the order's side
 * of its limit, nearest the limit first, every quote the core can pay at that price
 * (floor(base x price / price_scale) less 0 to quoteShortfallMax units, largest first), each value
 * once, at most OUTPUT_VALUES_MAX values and CANDIDATE_STEPS_MAX steps.
 */
export function candidateValues(rule: ValueRule): Candidates {
  if (rule.kind === 'unknown') return { values: [], complete: false, mayBeEmpty: true };
  if (rule.kind === 'exact') {
    const empty = rule.value <= 0n;
    return { values: empty ? [] : [rule.value], complete: true, mayBeEmpty: empty };
  }
  const { base_quantity: base, tick_size: tick, price_scale: scale } = rule;
  const values: bigint[] = [];
  const seen = new Set<bigint>(); // quotes already turned into values
  // The quotes seen span [lowest, highest]; while they fill it, an interval inside adds nothing.
  let lowest = 0n;
  let highest = -1n;
  let mayBeEmpty = false;
  let steps = 0;
  const visit = (quote: bigint): void => {
    steps += 1;
    if (seen.has(quote)) return;
    seen.add(quote);
    if (seen.size === 1 || quote < lowest) lowest = quote;
    if (seen.size === 1 || quote > highest) highest = quote;
    const value = rule.minus_from === undefined ? quote : rule.minus_from - quote;
    if (value > 0n) values.push(value);
    else mayBeEmpty = true;
  };
  // Nearest the limit first: a bid clears at or below its limit, an ask at or above (0: any price).
  const bid = rule.side === 'bid';
  let ticks = bid
    ? rule.price_limit / tick
    : rule.price_limit === 0n
      ? 1n
      : (rule.price_limit + tick - 1n) / tick;
  const budgetLeft = () => steps < CANDIDATE_STEPS_MAX && values.length < OUTPUT_VALUES_MAX;
  for (; ticks >= 1n && budgetLeft(); ticks += bid ? -1n : 1n) {
    steps += 1;
    const price = ticks * tick;
    const shortfallMax = quoteShortfallMax(base, price, scale);
    // No fill moves quote at this price; for a bid, none at any lower price either.
    if (shortfallMax < 0n) {
      if (bid) return { values, complete: true, mayBeEmpty };
      continue;
    }
    const full = (base * price) / scale;
    const low = full - shortfallMax;
    const covered = BigInt(seen.size) === highest - lowest + 1n && low >= lowest && full <= highest;
    if (covered) continue;
    for (let quote = full; quote >= low && budgetLeft(); quote -= 1n) visit(quote);
  }
  // Complete only when a bid's walk went down to one tick with every interval walked in full.
  return { values, complete: bid && ticks < 1n && budgetLeft(), mayBeEmpty };
}

/** The note `output` is when it holds `value`, with its leaf, as a wallet note without status. */
export function noteOfOutput(
  owner: Owner,
  output: ExpectedOutput,
  value: bigint,
): Omit<WalletNote, 'status'> {
  const parent = { ownerCommitment: owner.ownerCommitment, innerHash: output.parent_inner_hash };
  const derive = output.role === 'change' ? deriveChangeNote : deriveFillNote;
  const note = derive(owner.hasher, parent, assetIdOfMint(output.mint), value);
  return {
    commitment: note.hex.commitment,
    tree_id: output.tree_id,
    mint: output.mint,
    value,
    blinding: fieldToHex(note.blinding),
    inner_hash: note.hex.innerHash,
    origin: { order_id: output.order_id, match_id: output.match_id, role: output.role },
  };
}

/**
 * Commitment -> value for every candidate of `output`: one Poseidon each, from the output's inner
 * hash (the same for every value).
 */
export function candidateCommitments(owner: Owner, output: ExpectedOutput): Map<string, bigint> {
  const { values } = candidateValues(output.rule);
  const byCommitment = new Map<string, bigint>();
  if (values.length === 0) return byCommitment;
  const inner = noteOfOutput(owner, output, values[0] as bigint).inner_hash;
  for (const value of values) {
    byCommitment.set(owner.hasher.noteCommitment(owner.ownerCommitment, inner, value), value);
  }
  return byCommitment;
}
