import { createHash } from 'node:crypto';
import { PROOF_BYTES } from '@venue/protocol';
import { fieldToHex } from './field.ts';
import type { NoteHasher } from './hash.ts';
import { type MatchProof, type MatchProver, MatchProvingError } from './match-prover.ts';
import { type MatchBatchHeader, type MatchStatement, matchPublicInputs } from './match-public-inputs.ts';
import { settleLeg } from './match-rules.ts';

/**
 * The STAND-IN match prover and its check (docs/notes.md section 10.8): a prover with the real one's
 * interface that runs the same rules (settleLeg throws on a broken leg) and computes the same
 * statement, but whose "proof" is only sha256 over a domain and the public inputs, zero-padded to the
 * proof's 256 bytes. It proves nothing about the private inputs. It exists so that the many tests and
 * simulator seeds that settle can run in milliseconds; a chain accepts it only when started in its
 * stand-in mode, which `venue serve` refuses, and the real circuit runs in the end-to-end test, the
 * demo, `npm start` and a fixed simulator seed.
 */

const STAND_IN_DOMAIN = 'venue-match-stand-in-v1\u0000';

/** The stand-in proof of a statement: 256 bytes, hex. */
export function standInMatchProof(statement: MatchStatement): string {
  const hash = createHash('sha256').update(STAND_IN_DOMAIN);
  for (const input of matchPublicInputs(statement)) hash.update(fieldToHex(input), 'hex');
  return hash.digest('hex').padEnd(PROOF_BYTES * 2, '0');
}

/** True when `proof` is the stand-in proof of `statement` (the stand-in chain's whole check). */
export function isStandInMatchProof(statement: MatchStatement, proof: string): boolean {
  return proof === standInMatchProof(statement);
}

/** A prover answering at once with stand-in proofs; the same errors as the real one for a broken leg. */
export function createStandInMatchProver(hasher: NoteHasher): MatchProver {
  let closed = false;
  let queued = 0;
  const proveNow = (header: MatchBatchHeader, leg: Parameters<MatchProver['prove']>[1]): MatchProof => {
    if (closed) throw new MatchProvingError('the match prover is closed');
    let statement: MatchStatement;
    try {
      statement = settleLeg(hasher, header, leg).statement;
    } catch (error) {
      throw new MatchProvingError(`leg could not be proved: ${(error as Error).message}`);
    }
    return { statement, proof: standInMatchProof(statement) };
  };
  const prove = async (header: MatchBatchHeader, leg: Parameters<MatchProver['prove']>[1]) =>
    proveNow(header, leg);
  return {
    kind: 'stand-in',
    ready: async () => undefined,
    prove,
    proveNow,
    async proveBatch(header, legs) {
      queued += legs.length;
      try {
        return await Promise.all(legs.map((leg) => prove(header, leg)));
      } finally {
        queued -= legs.length;
      }
    },
    load: () => ({ queued, inFlight: 0, queueMax: Number.MAX_SAFE_INTEGER }),
    async close() {
      closed = true;
    },
  };
}
