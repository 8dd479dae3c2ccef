import { openFillMemo } from '@venue/notes';
import type { FillMemoPlaintext, FillMessage } from '@venue/protocol';
import type { KeyFile } from '../key-file.ts';

/**
 * Decrypts a fills-channel message into its memo plaintext. Throws when the memo does not open
 * (another viewing key, another order or match, altered bytes).
 */
export type FillMemoDecryptor = (message: FillMessage, keyFile: KeyFile) => FillMemoPlaintext;

/**
 * The default decryptor: the protocol's memo scheme (notes fill-memo.ts, the same code the venue
 * seals with) under the key file's X25519 viewing key, with the message's order id and match id
 * as the associated data, so a memo moved to another order or match does not open.
 */
export const openFillMemoWithKeyFile: FillMemoDecryptor = (message, keyFile) =>
  openFillMemo(
    viewingPrivateKeyHex(keyFile),
    { orderId: message.order_id, matchId: BigInt(message.match_id) },
    message.memo,
  );

/** The raw 32-byte X25519 private scalar of the key file, hex (what openFillMemo takes). */
function viewingPrivateKeyHex(keyFile: KeyFile): string {
  const jwk = keyFile.viewingPrivateKey().export({ format: 'jwk' });
  if (typeof jwk.d !== 'string') throw new Error('the viewing key does not export its private scalar');
  return Buffer.from(jwk.d, 'base64url').toString('hex');
}
