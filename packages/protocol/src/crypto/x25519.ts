/**
 * X25519 viewing keys (spec 2.1 `viewing_pubkey`): fill memos are encrypted to them. A low-order
 * public key makes the shared secret all zeros, so anyone could read the memo; such keys are
 * refused at intake and by the SDK.
 */

const P = 2n ** 255n - 19n;

/**
 * u-coordinates (mod p) of the points of order 1, 2, 4 and 8 on Curve25519 and its twist that
 * yield an all-zero X25519 output: 0, 1, p - 1, and the two order-8 points.
 */
const LOW_ORDER_U = new Set<bigint>([
  0n,
  1n,
  P - 1n,
  littleEndian('e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800'),
  littleEndian('5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157'),
]);

function littleEndian(hex: string): bigint {
  return BigInt(`0x${Buffer.from(hex, 'hex').reverse().toString('hex')}`);
}

/**
 * True when the 32-byte X25519 public key (hex) is a low-order point. RFC 7748 masks the top bit
 * of the u-coordinate and reduces it mod p, so non-canonical encodings (u >= p, top bit set) of the
 * same points are caught too.
 */
export function isLowOrderX25519(publicKeyHex: string): boolean {
  const bytes = Buffer.from(publicKeyHex, 'hex');
  if (bytes.length !== 32) return true;
  bytes[31] = (bytes[31] ?? 0) & 0x7f;
  const u = BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`) % P;
  return LOW_ORDER_U.has(u);
}
