import { assert, sha256, signDigest, type TradingKey, U64_MAX } from '@venue/protocol';

/**
 * The canonical bytes of a chain withdraw (docs/chain-sim.md section 4), the message a note's
 * spend authority signs to take its tokens out of the pool. It lives here, beside
 * spendAuthorityOf, so the chain that checks the signature and the SDK that makes it read one
 * layout: a second copy could drift by a byte and every withdraw would be refused.
 *
 * Layout: "venue-chain-withdraw-v1" NUL, tree_id u8, commitment, owner_commitment and
 * note_inner_hash as 32 raw bytes each, value u64 big-endian, recipient as u8 length + ASCII.
 * The NUL-terminated domain keeps a withdraw signature from passing as any other chain message.
 */

export const WITHDRAW_DOMAIN = 'venue-chain-withdraw-v1';

/** Everything a withdraw signature covers: the note's opening (minus its asset) and the recipient. */
export interface WithdrawMessage {
  readonly tree_id: number;
  readonly commitment: string;
  readonly owner_commitment: string;
  readonly note_inner_hash: string;
  readonly value: bigint;
  /** The public account (base58 address) that receives the tokens. */
  readonly recipient: string;
}

/** Longest recipient the u8 length prefix can carry, in ASCII characters. */
export const WITHDRAW_RECIPIENT_CHARS_MAX = 0xff;

const HEX32 = /^[0-9a-f]{64}$/;

function hex32(value: string, name: string): Buffer {
  assert(HEX32.test(value), `${name}: expected 32 bytes of lowercase hex`);
  return Buffer.from(value, 'hex');
}

export function withdrawBytes(message: WithdrawMessage): Uint8Array {
  const { tree_id: treeId, value, recipient } = message;
  assert(Number.isInteger(treeId) && treeId >= 0 && treeId <= 0xff, `tree_id: u8 out of range: ${treeId}`);
  assert(value >= 0n && value <= U64_MAX, `value: u64 out of range: ${value}`);
  assert(
    /^[\x20-\x7e]*$/.test(recipient) && recipient.length <= WITHDRAW_RECIPIENT_CHARS_MAX,
    'recipient: expected printable ASCII of at most 255 characters',
  );
  const amount = Buffer.alloc(8);
  amount.writeBigUInt64BE(value);
  return new Uint8Array(
    Buffer.concat([
      Buffer.from(`${WITHDRAW_DOMAIN}\u0000`, 'ascii'),
      Buffer.from([treeId]),
      hex32(message.commitment, 'commitment'),
      hex32(message.owner_commitment, 'owner_commitment'),
      hex32(message.note_inner_hash, 'note_inner_hash'),
      amount,
      Buffer.from([recipient.length]),
      Buffer.from(recipient, 'ascii'),
    ]),
  );
}

/** The spend authority's Ed25519 signature (hex) over sha256 of the withdraw bytes. */
export function signWithdrawMessage(message: WithdrawMessage, spendAuthority: TradingKey): string {
  return signDigest(spendAuthority, sha256(withdrawBytes(message)));
}
