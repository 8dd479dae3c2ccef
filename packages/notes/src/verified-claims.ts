import { createHash } from 'node:crypto';
import type { AssetClaim } from './claims.ts';

/**
 * The claims the verifier pool found valid lately, so that the same claim sent again is answered
 * without a pairing (decisions D118, docs/notes.md section 8).
 *
 * A VALID_INPUT proof binds a note, a root, a shard, an owner, an asset and a trading key, not an
 * order: a bot that cancels and places again against the same note (a requote) sends the very same
 * proof with the very same public inputs. Groth16 verification is a pure function of the key, the
 * proof and the public inputs, so a verdict of valid for those bytes stays valid. Nothing else is
 * decided here: the root's recency, the note's value and everything stateful are checked by the
 * core on every order, cached or not.
 *
 * Only valid verdicts are kept (an invalid proof has nothing to reuse, and keeping them would let
 * anyone fill the table), each under a sha256 of the whole claim, so the table holds 32-byte keys
 * and the commitment the worker derived, never a proof or an order field. It is bounded, least
 * recently used first out, and lives in memory only: a restart starts cold.
 */
export class VerifiedClaims {
  readonly #max: number;
  /** Key -> the commitment the worker derived (null when none was asked for). Map order = recency. */
  readonly #entries = new Map<string, string | null>();
  #reused = 0;

  constructor(max: number) {
    this.#max = max;
  }

  /** The claim's identity: every field the verdict depends on, unambiguously encoded, hashed. */
  keyOf(claim: AssetClaim): string | null {
    if (this.#max === 0) return null;
    const fields = [
      claim.valid_input_proof,
      claim.note_commitment,
      claim.merkle_root,
      claim.tree_id ?? null,
      claim.owner_commitment,
      claim.note_inner_hash,
      claim.trading_key,
      claim.assetId.toString(),
      claim.noteValue?.toString() ?? null,
    ];
    return createHash('sha256').update(JSON.stringify(fields)).digest('base64');
  }

  /** Whether a valid verdict is kept for this key (without counting it as reused). */
  knows(key: string | null): boolean {
    return key !== null && this.#entries.has(key);
  }

  /** The earlier verdict for this key, or undefined; a hit becomes the most recently used. */
  reuse(key: string | null): { readonly valid: true; readonly commitment: string | null } | undefined {
    if (key === null) return undefined;
    const commitment = this.#entries.get(key);
    if (commitment === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, commitment);
    this.#reused += 1;
    return { valid: true, commitment };
  }

  /** Keeps a valid verdict; the least recently used one leaves when the table is full. */
  remember(key: string | null, commitment: string | null): void {
    if (key === null) return;
    this.#entries.delete(key);
    this.#entries.set(key, commitment);
    if (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }

  /** How many verdicts were reused since start, and how many are kept now. */
  stats(): { readonly reused: number; readonly kept: number } {
    return { reused: this.#reused, kept: this.#entries.size };
  }
}
