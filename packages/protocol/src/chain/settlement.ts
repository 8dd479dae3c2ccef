import Type from 'typebox';
import { sha256 } from '../canonical/bodies.ts';
import { signDigest, type TradingKey } from '../crypto/ed25519.ts';
import { BYTES } from '../limits.ts';
import { SETTLEMENT_FAILURE_REASONS } from '../schema/account.ts';
import { Base58Address, Hex, OneOf, Strict, U8, U64 } from '../schema/primitives.ts';
import { ByteWriter } from './byte-writer.ts';
import type { ChainStatic } from './frozen.ts';
import { BATCH_LEGS_MAX, FILL_TAGS_PER_LEG_MAX } from './limits.ts';

/**
 * The settlement message (docs/chain-sim.md section 5): its schema, its canonical bytes, its
 * signature and its transaction id, kept together in this one file so that a change to what a
 * batch carries (issue 19: proofs instead of openings) is made once, for the chain, the venue and
 * the documents alike. Also the record the chain keeps of each settlement transaction.
 */

const Hash = () => Hex(BYTES.hash);

/** The note a settlement leg spends: named by its commitment and tag, never by its value. */
export const SettlementInputSchema = Strict(
  {
    tree_id: U8(),
    note_commitment: Hash(),
    note_use_tag: Hash(),
    merkle_root: Hex(BYTES.hash, {
      description: "The root the order's VALID_INPUT proof was made against: must be in the shard's window.",
    }),
  },
  { title: 'SettlementInput' },
);
export type SettlementInput = ChainStatic<typeof SettlementInputSchema>;

/** A note a leg creates: where it goes and its commitment, nothing of its opening (docs/chain-sim.md section 5). */
export const SettlementOutputSchema = Strict(
  { tree_id: U8(), commitment: Hash() },
  { title: 'SettlementOutput' },
);
export type SettlementOutput = ChainStatic<typeof SettlementOutputSchema>;

/**
 * One input note of the batch, the notes it turns into and the VALID_MATCH proof that ties them
 * together (docs/notes.md section 10). The chain rebuilds the proof's public inputs from these fields,
 * the batch header and the market account: amounts, owners and blindings stay private.
 */
export const SettlementLegSchema = Strict(
  {
    input: SettlementInputSchema,
    side: OneOf(['bid', 'ask'] as const, {
      description: 'A bid pays quote and receives base; an ask the reverse.',
    }),
    clearing_price: U64({
      description: "The auction's uniform price this leg traded at (a post-trade print).",
    }),
    // Absent when the note would hold 0 (the proof's commitment is then 0 and nothing is appended).
    received: Type.Optional(SettlementOutputSchema),
    change: Type.Optional(SettlementOutputSchema),
    fill_tags: Type.Array(Hash(), {
      minItems: 1,
      maxItems: FILL_TAGS_PER_LEG_MAX,
      description: 'One tag per fill; each appears in exactly one bid leg and one ask leg of the batch.',
    }),
    proof: Hex(BYTES.proof, { description: 'The VALID_MATCH Groth16 proof of this leg (256 bytes).' }),
  },
  { title: 'SettlementLeg' },
);
export type SettlementLeg = ChainStatic<typeof SettlementLegSchema>;

const unsignedBatchFields = {
  market_id: Base58Address(),
  batch_seq: U64({ description: "Must equal the market's next_batch_seq when the batch lands." }),
  deadline_slot: U64({
    description: 'Last slot the batch may land in; later it fails with confirmation_timeout.',
  }),
  match_count: Type.Integer({
    minimum: 1,
    maximum: BATCH_LEGS_MAX,
    'x-expected': `an integer from 1 to ${BATCH_LEGS_MAX}`,
    description: 'Matches the batch settles (public in the settlement status).',
  }),
  legs: Type.Array(SettlementLegSchema, { minItems: 2, maxItems: BATCH_LEGS_MAX }),
  signer: Hex(BYTES.publicKey),
};

export const UnsignedSettlementBatchSchema = Strict(unsignedBatchFields, {
  title: 'UnsignedSettlementBatch',
});
export type UnsignedSettlementBatch = ChainStatic<typeof UnsignedSettlementBatchSchema>;

export const SettlementBatchSchema = Strict(
  { ...unsignedBatchFields, signature: Hex(BYTES.signature) },
  { title: 'SettlementBatch' },
);
export type SettlementBatch = ChainStatic<typeof SettlementBatchSchema>;

/** What the chain remembers of one settlement transaction (outside the rolled-back ledger). */
export const SettlementRecordSchema = Strict(
  {
    tx_id: Hash(),
    market_id: Base58Address(),
    batch_seq: U64(),
    match_count: unsignedBatchFields.match_count,
    submitted_slot: U64(),
    state: OneOf(['pending', 'landed', 'failed'] as const, {
      description: 'pending: waiting (delayed); landed: applied at included_slot; failed: definitive.',
    }),
    included_slot: Type.Optional(U64()),
    failed_slot: Type.Optional(U64()),
    reason: Type.Optional(OneOf(SETTLEMENT_FAILURE_REASONS)),
    message: Type.Optional(Type.String({ description: 'Why the batch failed, for people.' })),
    appended: Type.Optional(
      Type.Array(Strict({ tree_id: U8(), leaf_index: U64(), commitment: Hash() }), {
        description: 'Leaves appended by a landed batch, in order.',
      }),
    ),
  },
  { title: 'SettlementRecord' },
);
export type SettlementRecord = ChainStatic<typeof SettlementRecordSchema>;

export const SETTLEMENT_DOMAIN = 'venue-chain-settlement-v2';

export function settlementBytes(batch: UnsignedSettlementBatch): Uint8Array {
  const w = new ByteWriter(SETTLEMENT_DOMAIN)
    .ascii(batch.market_id)
    .u64(batch.batch_seq)
    .u64(batch.deadline_slot)
    .u32(batch.match_count)
    .u32(batch.legs.length);
  for (const leg of batch.legs) {
    const { input } = leg;
    w.u8(input.tree_id).hex(input.note_commitment, 32).hex(input.note_use_tag, 32).hex(input.merkle_root, 32);
    w.u8(leg.side === 'bid' ? 0 : 1).u64(leg.clearing_price);
    for (const output of [leg.received, leg.change]) {
      // presence byte, then the output: an absent note and a note cannot encode alike
      if (output === undefined) w.u8(0);
      else w.u8(1).u8(output.tree_id).hex(output.commitment, 32);
    }
    w.u8(leg.fill_tags.length);
    for (const tag of leg.fill_tags) w.hex(tag, 32);
    w.hex(leg.proof, BYTES.proof);
  }
  return w.hex(batch.signer, 32).bytes();
}

/** The transaction id of a signed batch: sha256(digest || signature). Same batch, same id. */
export function settlementTxId(batch: SettlementBatch): string {
  const digest = sha256(settlementBytes(batch));
  return Buffer.from(sha256(Buffer.concat([digest, Buffer.from(batch.signature, 'hex')]))).toString('hex');
}

/** Ed25519 over sha256 of the canonical bytes; deterministic, so the same batch signs the same. */
export function signSettlementBatch(batch: UnsignedSettlementBatch, key: TradingKey): SettlementBatch {
  return { ...batch, signature: signDigest(key, sha256(settlementBytes(batch))) };
}
