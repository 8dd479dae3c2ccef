import { createHash } from 'node:crypto';
import { type TradingKey, tradingKeyFromSeed } from '@venue/protocol';
import { fieldToHex } from './field.ts';

// The tag keeps its historical chain-sim name: changing it would change every wallet's authority
// and strand the notes already deposited under the old one.
const SPEND_AUTHORITY_TAG = 'venue-chain-sim-spend-authority-v1\u0000';

/**
 * The Ed25519 key a wallet binds to its deposits as their spend authority, derived from its
 * spending key: seed = sha256(tag || spending key as 32 bytes big-endian). One spending key, one
 * authority, so the SDK can withdraw or merge any of its notes (and the fill and change notes that
 * inherit the authority) without storing another secret. The chain only ever sees the public key.
 * It lives here, beside the note cryptography, so the SDK and the chain simulator share one rule.
 */
export function spendAuthorityOf(spendingKey: bigint): TradingKey {
  const seed = createHash('sha256')
    .update(SPEND_AUTHORITY_TAG)
    .update(Buffer.from(fieldToHex(spendingKey), 'hex'))
    .digest();
  return tradingKeyFromSeed(seed);
}
