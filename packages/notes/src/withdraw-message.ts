import {
  ByteWriter,
  PROOF_BYTES,
  sha256,
  signDigest,
  type TradingKey,
  type WithdrawRequest,
} from '@venue/protocol';

/**
 * The canonical bytes of a chain withdraw (docs/chain-sim.md section 4), the message a note's
 * spend authority signs to take tokens out of the pool. It lives here, beside spendAuthorityOf and
 * the VALID_SPEND prover, so the chain that checks the signature and the SDK that makes it read one
 * layout: a second copy could drift by a byte and every withdraw would be refused.
 *
 * Layout v2 (no opening; the proof shows ownership): "venue-chain-withdraw-v2" NUL, tree_id u8,
 * commitment and note_use_tag as 32 raw bytes each, mint as u8 length + ASCII, value u64
 * big-endian, recipient as u8 length + ASCII, change presence u8 then its tree_id u8 and commitment,
 * the 256-byte proof. The NUL-terminated domain keeps a withdraw signature from passing as any other
 * chain message.
 */

export const WITHDRAW_DOMAIN = 'venue-chain-withdraw-v2';

/** Everything a withdraw signature covers: the whole request but the signature. */
export type WithdrawMessage = Omit<WithdrawRequest, 'signature'>;

/** Longest recipient the u8 length prefix can carry, in ASCII characters. */
export const WITHDRAW_RECIPIENT_CHARS_MAX = 0xff;

export function withdrawBytes(message: WithdrawMessage): Uint8Array {
  const w = new ByteWriter(WITHDRAW_DOMAIN)
    .u8(message.tree_id)
    .hex(message.commitment, 32)
    .hex(message.note_use_tag, 32)
    .ascii(message.mint)
    .u64(message.value)
    .ascii(message.recipient);
  // presence byte, then the change: an absent note and a note cannot encode alike
  if (message.change === undefined) w.u8(0);
  else w.u8(1).u8(message.change.tree_id).hex(message.change.commitment, 32);
  return w.hex(message.proof, PROOF_BYTES).bytes();
}

/** The spend authority's Ed25519 signature (hex) over sha256 of the withdraw bytes. */
export function signWithdrawMessage(message: WithdrawMessage, spendAuthority: TradingKey): string {
  return signDigest(spendAuthority, sha256(withdrawBytes(message)));
}
