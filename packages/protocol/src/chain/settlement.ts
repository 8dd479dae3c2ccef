import Type from 'typebox';
import { sha256 } from '../canonical/bodies.ts';
import { signDigest, type TradingKey } from '../crypto/ed25519.ts';
import { BYTES } from '../limits.ts';
import { SETTLEMENT_FAILURE_REASONS } from '../schema/account.ts';
import { Base58Address, Hex, OneOf, Strict, U8, U64 } from '../schema/primitives.ts';
import { ByteWriter } from './byte-writer.ts';
import type { ChainStatic } from './frozen.ts';
import { BATCH_LEGS_MAX, BATCH_PROOF_BYTES_MAX, OUTPUTS_PER_LEG_MAX } from './limits.ts';
import { HexBytes, PositiveU64 } from './primitives.ts';

/**
 * The settlement message (docs/chain-sim.md section 5): its schema, its canonical bytes, its
 * signature and its transaction id, kept together in this one file so that a change to what a
 * batch carries (issue 19: proofs instead of openings) is made once, for the chain, the venue and
 * the documents alike. Also the record the chain keeps of each settlement transaction.
 */

const Hash = () => Hex(BYTES.hash);

/** The note a settlement leg spends, and what it claims about it. */
export const SettlementInputSchema = Strict(
  {
    tree_id: U8(),
    note_commitment: Hash(),
    note_use_tag: Hash(),
    merkle_root: Hex(BYTES.hash, {
      description: "The root the order's VALID_INPUT proof was made against: must be in the shard's window.",
    }),
    value: U64(),
  },
  { title: 'SettlementInput' },
);
export type SettlementInput = ChainStatic<typeof SettlementInputSchema>;

/** A note a leg creates, with its opening (see docs/chain-sim.md section 5 on disclosure). */
export const SettlementOutputSchema = Strict(
  {
    tree_id: U8(),
    commitment: Hash(),
    owner_commitment: Hash(),
    asset_id: Hash(),
    blinding: Hash(),
    value: PositiveU64({ description: 'An output note holds a positive value.' }),
  },
  { title: 'SettlementOutput' },
);
export type SettlementOutput = ChainStatic<typeof SettlementOutputSchema>;

/** One input note of the batch and the notes it turns into (its fill and its change). */
export const SettlementLegSchema = Strict(
  {
    input: SettlementInputSchema,
    outputs: Type.Array(SettlementOutputSchema, { minItems: 1, maxItems: OUTPUTS_PER_LEG_MAX }),
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
  proof: HexBytes(BATCH_PROOF_BYTES_MAX, {
    description: 'Reserved for the VALID_MATCH_BATCH proof: empty hex until that circuit exists.',
  }),
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

export const SETTLEMENT_DOMAIN = 'venue-chain-settlement-v1';

export function settlementBytes(batch: UnsignedSettlementBatch): Uint8Array {
  const w = new ByteWriter(SETTLEMENT_DOMAIN)
    .ascii(batch.market_id)
    .u64(batch.batch_seq)
    .u64(batch.deadline_slot)
    .u32(batch.match_count)
    .u32(batch.legs.length);
  for (const { input, outputs } of batch.legs) {
    w.u8(input.tree_id).hex(input.note_commitment, 32).hex(input.note_use_tag, 32);
    w.hex(input.merkle_root, 32).u64(input.value).u8(outputs.length);
    for (const output of outputs) {
      w.u8(output.tree_id).hex(output.commitment, 32).hex(output.owner_commitment, 32);
      w.hex(output.asset_id, 32).hex(output.blinding, 32).u64(output.value);
    }
  }
  return w.hexVar(batch.proof).hex(batch.signer, 32).bytes();
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
