import { signDigest, type TradingKey, verifyDigest } from '../crypto/ed25519.ts';
import { U64_MAX } from '../limits.ts';
import { sha256 } from './bodies.ts';
import { encodeLayout, place } from './layout.ts';

/**
 * A signed oracle price update (spec 1 item 8: a feed must be authenticated, fresh and not
 * replayed). The publisher signs sha256 of fixed-layout bytes; `sequence` rises by at least one per
 * update, so an old update sent again is recognised as a replay. Prices are in the market's price
 * scale; `confidence` is the half-width of the publisher's confidence interval, same units.
 */
export const ORACLE_DOMAIN = 'venue-oracle-v1';

export interface OracleUpdate {
  /** Base58 address of the oracle account (the market's `oracle_feed`). */
  readonly feed: string;
  readonly price: bigint;
  readonly confidence: bigint;
  /** Chain slot at which the publisher observed the price. */
  readonly publish_slot: bigint;
  readonly sequence: bigint;
  readonly signature: string;
}

const FEED_SLOT_BYTES = 48;

export const ORACLE_UPDATE_LAYOUT = place([
  { name: 'domain', type: { kind: 'domain', tag: ORACLE_DOMAIN }, note: 'ASCII tag, then one zero byte' },
  { name: 'feed', type: { kind: 'hex', bytes: FEED_SLOT_BYTES }, note: 'feed address, ASCII, zero padded' },
  { name: 'price', type: { kind: 'u64' }, note: 'price in the market scale' },
  { name: 'confidence', type: { kind: 'u64' }, note: 'confidence half-width, same scale' },
  { name: 'publish_slot', type: { kind: 'u64' }, note: 'slot of the observation' },
  { name: 'sequence', type: { kind: 'u64' }, note: 'strictly increasing per feed' },
]);

function digestOf(update: Omit<OracleUpdate, 'signature'>): Uint8Array {
  const feed = Buffer.alloc(FEED_SLOT_BYTES);
  feed.write(update.feed.slice(0, FEED_SLOT_BYTES), 'ascii');
  return sha256(
    encodeLayout(ORACLE_UPDATE_LAYOUT.fields, ORACLE_UPDATE_LAYOUT.size, {
      ...update,
      feed: feed.toString('hex'),
    }),
  );
}

export function signOracleUpdate(
  update: Omit<OracleUpdate, 'signature'>,
  publisher: TradingKey,
): OracleUpdate {
  return { ...update, signature: signDigest(publisher, digestOf(update)) };
}

/**
 * False for anything but an untouched update signed by `publisherKey`; never throws, since updates
 * arrive from outside. The feed must be printable ASCII: the digest zero-pads it, so "F" and "F\0"
 * (or a character whose low byte is "F") would otherwise share a signature. Out-of-range numbers
 * cannot have been signed.
 */
export function verifyOracleUpdate(update: OracleUpdate, publisherKey: string): boolean {
  const { price, confidence, publish_slot, sequence } = update;
  if (![price, confidence, publish_slot, sequence].every(isU64)) return false;
  if (typeof update.feed !== 'string' || !FEED_TEXT.test(update.feed)) return false;
  return verifyDigest(publisherKey, digestOf(update), update.signature);
}

const FEED_TEXT = new RegExp(`^[\\x21-\\x7e]{1,${FEED_SLOT_BYTES}}$`);

function isU64(value: unknown): boolean {
  return typeof value === 'bigint' && value >= 0n && value <= U64_MAX;
}
