import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/**
 * Where `venue oracle publish` takes its prices from. Each source is asked once per new chain slot
 * for the observation to sign at that slot; null means nothing new to publish, so a source that
 * falls silent lets the venue's markets go stale instead of re-signing an old price as fresh.
 * Prices and confidences are integers in the market's price scale (docs/client-reference.md).
 */
export interface PricePoint {
  readonly price: bigint;
  readonly confidence: bigint;
}

export interface PriceSource {
  /** A short description for log lines (never a price). */
  readonly name: string;
  /** The observation for `step` (new slots since the publisher started). May throw; the slot is skipped. */
  next(step: number): Promise<PricePoint | null>;
  close(): void;
}

/** When a source gives no confidence: price / 2000 (0.05 %), as the price series format does. */
const CONFIDENCE_DIVISOR = 2_000n;
const U64_MAX = (1n << 64n) - 1n;
/** A source URL answer larger than this is refused: one price is a few dozen bytes. */
export const SOURCE_RESPONSE_BYTES_MAX = 4 * 1024;

/** Parses one price and optional confidence; the message says what was wrong. */
export function pricePointOf(price: unknown, confidence: unknown): PricePoint {
  const u64 = (value: unknown, what: string): bigint => {
    const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
    if (typeof text !== 'string' || !/^(0|[1-9][0-9]{0,19})$/.test(text) || BigInt(text) > U64_MAX) {
      throw new Error(
        `${what}: expected a whole number in the market's price scale, received ${JSON.stringify(value)}`,
      );
    }
    return BigInt(text);
  };
  const parsed = u64(price, 'price');
  if (parsed === 0n) throw new Error('price: must be above 0');
  return {
    price: parsed,
    confidence:
      confidence === undefined || confidence === null || confidence === ''
        ? parsed / CONFIDENCE_DIVISOR
        : u64(confidence, 'confidence'),
  };
}

/** Relays a JSON endpoint: each GET answers `{"price": ..., "confidence": ...}` (confidence optional). */
export function urlSource(url: string, timeoutMs: number): PriceSource {
  return {
    name: url,
    async next() {
      const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
      const text = await response.text();
      if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
      if (text.length > SOURCE_RESPONSE_BYTES_MAX)
        throw new Error(`${url}: answer larger than ${SOURCE_RESPONSE_BYTES_MAX} bytes`);
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        throw new Error(`${url}: the answer is not JSON; expected {"price": ..., "confidence": ...}`);
      }
      return pricePointOf(json['price'], json['confidence']);
    },
    close() {},
  };
}

/**
 * Relays lines from a stream (stdin): each line is `PRICE` or `PRICE CONFIDENCE`. At each slot the
 * newest line since the last slot is published; a bad line is reported with its number and skipped.
 */
export function lineSource(
  input: Readable,
  onBadLine: (message: string) => void,
  onEnd: () => void,
): PriceSource {
  let newest: PricePoint | null = null;
  let lineNumber = 0;
  const lines = createInterface({ input });
  lines.on('line', (raw) => {
    lineNumber += 1;
    const text = raw.trim();
    if (text === '' || text.startsWith('#')) return;
    const fields = text.split(/\s+/);
    try {
      if (fields.length > 2) throw new Error('expected PRICE or PRICE CONFIDENCE');
      newest = pricePointOf(fields[0], fields[1]);
    } catch (error) {
      onBadLine(`stdin line ${lineNumber}: ${(error as Error).message}; line skipped`);
    }
  });
  lines.once('close', onEnd);
  return {
    name: 'stdin',
    async next() {
      const point = newest;
      newest = null;
      return point;
    },
    close: () => lines.close(),
  };
}

/** Replays a recorded series: row step N is published at the N-th new slot; then loops or holds. */
export function replaySource(
  file: string,
  series: { lastStep: number; at(step: number): ReadonlyMap<string, PricePoint> },
  symbol: string,
  atEnd: 'loop' | 'hold',
): PriceSource {
  const length = series.lastStep + 1;
  return {
    name: file,
    async next(step) {
      if (step >= length && atEnd === 'hold') return null;
      return series.at(step % length).get(symbol) ?? null;
    },
    close() {},
  };
}
