import { createHash } from 'node:crypto';
import { PROOF_BYTES } from '@venue/protocol';
import { fieldToHex } from './field.ts';
import { type SpendStatement, spendPublicInputs } from './spend-public-inputs.ts';

/**
 * The STAND-IN spend proof (docs/notes.md section 11), as match-stand-in.ts is for settlement:
 * sha256 over a domain and the statement's public inputs, zero-padded to a proof's 256 bytes. It
 * proves nothing about the openings; a chain accepts it only in its stand-in proof mode, so tests and
 * simulator seeds that withdraw or merge run in milliseconds.
 */
const STAND_IN_DOMAIN = 'venue-spend-stand-in-v1\u0000';

export function standInSpendProof(statement: SpendStatement): string {
  const hash = createHash('sha256').update(STAND_IN_DOMAIN);
  for (const input of spendPublicInputs(statement)) hash.update(fieldToHex(input), 'hex');
  return hash.digest('hex').padEnd(PROOF_BYTES * 2, '0');
}

/** True when `proof` is the stand-in proof of `statement` (the stand-in chain's whole check). */
export function isStandInSpendProof(statement: SpendStatement, proof: string): boolean {
  return proof === standInSpendProof(statement);
}
