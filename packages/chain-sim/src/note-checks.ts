import { FIELD_MODULUS } from '@venue/notes';
import type { Ledger } from './ledger.ts';
import type { Hex32, LockAccount } from './types.ts';

/** Checks shared by withdraw, merge, locks and settlement. */

/** A lock blocks through its expiry slot, unless reverted (spec 3.2: it stops blocking at expiry). */
export function isLive(lock: LockAccount | undefined, slot: bigint): lock is LockAccount {
  return lock !== undefined && !lock.reverted && slot <= lock.expiry_slot;
}

export function liveLock(ledger: Ledger, tag: Hex32, slot: bigint): LockAccount | undefined {
  const lock = ledger.locks.get(tag);
  return isLive(lock, slot) ? lock : undefined;
}

/** A hex value as a field element, or undefined when it is at or above the BN254 modulus. */
export function fieldOf(hex: Hex32): bigint | undefined {
  const value = BigInt(`0x${hex}`);
  return value < FIELD_MODULUS ? value : undefined;
}
