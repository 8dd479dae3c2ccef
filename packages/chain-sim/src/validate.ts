import { U64_MAX } from '@venue/protocol';
import { BASE58_ADDRESS, HEX32, HEX64 } from './bytes.ts';
import { reject } from './errors.ts';
import {
  BATCH_LEGS_MAX,
  BATCH_PROOF_BYTES_MAX,
  LOCKS_PER_REQUEST_MAX,
  MERGE_INPUTS_MAX,
  OUTPUTS_PER_LEG_MAX,
} from './limits.ts';
import type {
  DepositRequest,
  GovernanceRequest,
  LockRequest,
  MergeRequest,
  NoteSpend,
  SettlementBatch,
  SettlementInput,
  SettlementLeg,
  SettlementOutput,
  WithdrawRequest,
} from './types.ts';

/**
 * Shape checks of every request, in-process or from JSON-RPC alike: the chain's first line of
 * defence. A request that fails here never becomes a transaction (`bad_request`, naming the field).
 * Semantic checks (is the note there, is it locked) come later and have their own reasons.
 */

type Fields = Record<string, unknown>;

export function object(value: unknown, name: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    reject('bad_request', `${name}: expected an object`);
  }
  return value as Fields;
}

export function hex32(value: unknown, name: string): string {
  if (typeof value !== 'string' || !HEX32.test(value)) {
    reject('bad_request', `${name}: expected 64 lowercase hex characters (32 bytes)`);
  }
  return value;
}

export function hex64(value: unknown, name: string): string {
  if (typeof value !== 'string' || !HEX64.test(value)) {
    reject('bad_request', `${name}: expected 128 lowercase hex characters (64 bytes)`);
  }
  return value;
}

export function address(value: unknown, name: string): string {
  if (typeof value !== 'string' || !BASE58_ADDRESS.test(value)) {
    reject('bad_request', `${name}: expected a base58 address of 32 to 44 characters`);
  }
  return value;
}

export function u64(value: unknown, name: string): bigint {
  if (typeof value !== 'bigint' || value < 0n || value > U64_MAX) {
    reject('bad_request', `${name}: expected an unsigned 64-bit integer`);
  }
  return value;
}

export function int(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    reject('bad_request', `${name}: expected an integer from ${min} to ${max}`);
  }
  return value;
}

export function text(value: unknown, name: string, lengthMax: number): string {
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > lengthMax ||
    !/^[\x20-\x7e]*$/.test(value)
  ) {
    reject('bad_request', `${name}: expected printable ASCII text of 1 to ${lengthMax} characters`);
  }
  return value;
}

export function list(value: unknown, name: string, min: number, max: number): unknown[] {
  if (!Array.isArray(value) || value.length < min || value.length > max) {
    reject('bad_request', `${name}: expected an array of ${min} to ${max} items`);
  }
  return value;
}

const treeId = (value: unknown, name: string): number => int(value, name, 0, 255);

export function depositRequest(value: unknown): DepositRequest {
  const r = object(value, 'deposit');
  return {
    tree_id: treeId(r['tree_id'], 'tree_id'),
    mint: address(r['mint'], 'mint'),
    value: u64(r['value'], 'value'),
    owner_commitment: hex32(r['owner_commitment'], 'owner_commitment'),
    blinding: hex32(r['blinding'], 'blinding'),
    spend_authority: hex32(r['spend_authority'], 'spend_authority'),
  };
}

function noteSpend(value: unknown, name: string): NoteSpend {
  const r = object(value, name);
  return {
    tree_id: treeId(r['tree_id'], `${name}.tree_id`),
    commitment: hex32(r['commitment'], `${name}.commitment`),
    owner_commitment: hex32(r['owner_commitment'], `${name}.owner_commitment`),
    note_inner_hash: hex32(r['note_inner_hash'], `${name}.note_inner_hash`),
    value: u64(r['value'], `${name}.value`),
  };
}

export function withdrawRequest(value: unknown): WithdrawRequest {
  const r = object(value, 'withdraw');
  return {
    ...noteSpend(r, 'withdraw'),
    recipient: address(r['recipient'], 'recipient'),
    signature: hex64(r['signature'], 'signature'),
  };
}

export function mergeRequest(value: unknown): MergeRequest {
  const r = object(value, 'merge');
  const output = object(r['output'], 'output');
  return {
    inputs: list(r['inputs'], 'inputs', 2, MERGE_INPUTS_MAX).map((input, i) =>
      noteSpend(input, `inputs[${i}]`),
    ),
    output: {
      tree_id: treeId(output['tree_id'], 'output.tree_id'),
      blinding: hex32(output['blinding'], 'output.blinding'),
    },
    signature: hex64(r['signature'], 'signature'),
  };
}

export function lockRequest(value: unknown): LockRequest {
  const r = object(value, 'lock');
  return {
    market_id: address(r['market_id'], 'market_id'),
    locks: list(r['locks'], 'locks', 1, LOCKS_PER_REQUEST_MAX).map((item, i) => {
      const lock = object(item, `locks[${i}]`);
      return {
        note_use_tag: hex32(lock['note_use_tag'], `locks[${i}].note_use_tag`),
        expiry_slot: u64(lock['expiry_slot'], `locks[${i}].expiry_slot`),
      };
    }),
    signer: hex32(r['signer'], 'signer'),
    signature: hex64(r['signature'], 'signature'),
  };
}

export function governanceRequest(value: unknown): GovernanceRequest {
  const r = object(value, 'governance');
  return {
    sequence: u64(r['sequence'], 'sequence'),
    measurement: hex32(r['measurement'], 'measurement'),
    settlement_signer: hex32(r['settlement_signer'], 'settlement_signer'),
    signature: hex64(r['signature'], 'signature'),
  };
}

function settlementInput(value: unknown, name: string): SettlementInput {
  const r = object(value, name);
  return {
    tree_id: treeId(r['tree_id'], `${name}.tree_id`),
    note_commitment: hex32(r['note_commitment'], `${name}.note_commitment`),
    note_use_tag: hex32(r['note_use_tag'], `${name}.note_use_tag`),
    merkle_root: hex32(r['merkle_root'], `${name}.merkle_root`),
    value: u64(r['value'], `${name}.value`),
  };
}

function settlementOutput(value: unknown, name: string): SettlementOutput {
  const r = object(value, name);
  const output = {
    tree_id: treeId(r['tree_id'], `${name}.tree_id`),
    commitment: hex32(r['commitment'], `${name}.commitment`),
    owner_commitment: hex32(r['owner_commitment'], `${name}.owner_commitment`),
    asset_id: hex32(r['asset_id'], `${name}.asset_id`),
    blinding: hex32(r['blinding'], `${name}.blinding`),
    value: u64(r['value'], `${name}.value`),
  };
  if (output.value === 0n) reject('bad_request', `${name}.value: an output note holds a positive value`);
  return output;
}

function settlementLeg(value: unknown, name: string): SettlementLeg {
  const r = object(value, name);
  return {
    input: settlementInput(r['input'], `${name}.input`),
    outputs: list(r['outputs'], `${name}.outputs`, 1, OUTPUTS_PER_LEG_MAX).map((o, i) =>
      settlementOutput(o, `${name}.outputs[${i}]`),
    ),
  };
}

export function settlementBatch(value: unknown): SettlementBatch {
  const r = object(value, 'batch');
  const legs = list(r['legs'], 'legs', 2, BATCH_LEGS_MAX).map((leg, i) => settlementLeg(leg, `legs[${i}]`));
  const matchCount = int(r['match_count'], 'match_count', 1, BATCH_LEGS_MAX);
  // Each match has two legs, and every leg takes part in at least one match.
  if (legs.length > 2 * matchCount) {
    reject('bad_request', `legs: ${legs.length} legs cannot come from ${matchCount} matches`);
  }
  const proof = r['proof'];
  if (
    typeof proof !== 'string' ||
    !/^(?:[0-9a-f]{2})*$/.test(proof) ||
    proof.length > 2 * BATCH_PROOF_BYTES_MAX
  ) {
    reject('bad_request', `proof: expected hex of at most ${BATCH_PROOF_BYTES_MAX} bytes (empty for now)`);
  }
  return {
    market_id: address(r['market_id'], 'market_id'),
    batch_seq: u64(r['batch_seq'], 'batch_seq'),
    deadline_slot: u64(r['deadline_slot'], 'deadline_slot'),
    match_count: matchCount,
    legs,
    proof,
    signer: hex32(r['signer'], 'signer'),
    signature: hex64(r['signature'], 'signature'),
  };
}
