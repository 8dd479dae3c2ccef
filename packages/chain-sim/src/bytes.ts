/**
 * The canonical byte writer of the chain's signed messages is the contract's
 * (packages/protocol/src/chain/byte-writer.ts); re-exported for the simulator's users.
 */
export { ByteWriter } from '@venue/protocol';

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Base58 (Bitcoin alphabet) of bytes; used to name accounts the simulator derives. */
export function base58(bytes: Uint8Array): string {
  let value = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let text = '';
  while (value > 0n) {
    text = (BASE58_ALPHABET[Number(value % 58n)] ?? '') + text;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    text = `1${text}`;
  }
  return text;
}

export const HEX32 = /^[0-9a-f]{64}$/;
export const HEX64 = /^[0-9a-f]{128}$/;
export const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
