import { assert, U64_MAX } from '@venue/protocol';
import { PRICE_SERIES_BYTES_MAX, PRICE_SERIES_ROWS_MAX, PRICE_SERIES_STEPS_MAX } from '../config/limits.ts';

/**
 * A recorded price series for the oracle simulator to replay (docs/enclave.md, "Oracle
 * simulator"). The file is CSV text:
 *
 *   # lines starting with # and blank lines are ignored
 *   step,symbol,price,confidence
 *   0,SOL-USDC,150000,75
 *   0,ETH-USDC,3000000,
 *   3,SOL-USDC,150120,80
 *
 * - the first other line is exactly the header `step,symbol,price,confidence`;
 * - `step` counts simulator steps (one per slot) from the start of the replay; rows come in
 *   non-decreasing step order and a symbol appears at most once per step; a step without a row for
 *   a symbol publishes nothing for it, so a gap longer than the market's `oracle_max_age_slots`
 *   makes it stale on purpose;
 * - `price` and `confidence` are integers in the market's price scale (quote units per base unit
 *   times `price_scale`), like the instrument record; `price` > 0; an empty confidence means
 *   price / 2000 (0.05 %).
 */
export const PRICE_SERIES_HEADER = 'step,symbol,price,confidence';
/** Confidence used when a row leaves it empty: price / 2000. */
export const DEFAULT_CONFIDENCE_DIVISOR = 2_000n;

export interface PricePoint {
  readonly price: bigint;
  readonly confidence: bigint;
}

export interface PriceSeries {
  /** Symbols that have at least one row: the simulator replays these and walks the others. */
  readonly symbols: ReadonlySet<string>;
  /** The last step with a row; the series lasts `lastStep + 1` steps. */
  readonly lastStep: number;
  /** The rows of one step, by symbol (empty when the step has none). */
  at(step: number): ReadonlyMap<string, PricePoint>;
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** Parses the text of a series file; `symbols` are the markets it may name. */
export function parsePriceSeries(
  text: string,
  symbols: ReadonlySet<string>,
  source = 'price series',
): PriceSeries {
  const fail = (line: number, why: string): never => {
    throw new Error(`${source} line ${line}: ${why}`);
  };
  if (Buffer.byteLength(text, 'utf8') > PRICE_SERIES_BYTES_MAX) {
    fail(0, `the file is larger than ${PRICE_SERIES_BYTES_MAX} bytes; split the recording`);
  }
  const steps = new Map<number, Map<string, PricePoint>>();
  let header = false;
  let lastStep = -1;
  let rows = 0;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const content = raw.trim();
    if (content === '' || content.startsWith('#')) return;
    if (!header) {
      if (content !== PRICE_SERIES_HEADER) fail(line, `the first line must be "${PRICE_SERIES_HEADER}"`);
      header = true;
      return;
    }
    rows += 1;
    if (rows > PRICE_SERIES_ROWS_MAX)
      fail(line, `more than ${PRICE_SERIES_ROWS_MAX} rows; split the recording`);
    const fields = content.split(',').map((field) => field.trim());
    if (fields.length !== 4) fail(line, `expected 4 comma-separated fields (${PRICE_SERIES_HEADER})`);
    const [stepText = '', symbol = '', priceText = '', confidenceText = ''] = fields;
    const step = integerOf(stepText, 'step', line, fail);
    if (step > BigInt(PRICE_SERIES_STEPS_MAX))
      fail(line, `step is above the maximum ${PRICE_SERIES_STEPS_MAX}`);
    if (Number(step) < lastStep)
      fail(line, `step ${step} comes after step ${lastStep}; sort the rows by step`);
    if (!symbols.has(symbol)) {
      fail(line, `unknown symbol "${symbol}"; this venue lists ${[...symbols].join(', ')}`);
    }
    const price = integerOf(priceText, 'price', line, fail);
    if (price === 0n) fail(line, 'price must be above 0');
    const confidence =
      confidenceText === ''
        ? price / DEFAULT_CONFIDENCE_DIVISOR
        : integerOf(confidenceText, 'confidence', line, fail);
    lastStep = Number(step);
    const row = steps.get(lastStep) ?? new Map<string, PricePoint>();
    if (row.has(symbol)) fail(line, `${symbol} appears twice at step ${step}`);
    row.set(symbol, { price, confidence });
    steps.set(lastStep, row);
  });
  if (!header) fail(0, `the file is empty; it needs the header "${PRICE_SERIES_HEADER}" and rows`);
  if (rows === 0) fail(0, 'the file has a header but no rows');
  assert(lastStep >= 0, 'a series with rows has a last step');
  const named = new Set([...steps.values()].flatMap((row) => [...row.keys()]));
  const empty: ReadonlyMap<string, PricePoint> = new Map();
  return { symbols: named, lastStep, at: (step) => steps.get(step) ?? empty };
}

function integerOf(
  text: string,
  field: string,
  line: number,
  fail: (line: number, why: string) => never,
): bigint {
  if (!DECIMAL.test(text)) fail(line, `${field} "${text}" is not a non-negative decimal integer`);
  const value = BigInt(text);
  if (value > U64_MAX) fail(line, `${field} is above the u64 maximum`);
  return value;
}
