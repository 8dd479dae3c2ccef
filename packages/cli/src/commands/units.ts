import { CliError } from './output.ts';

/**
 * Human units (`--human`): amounts in tokens and prices in quote tokens per base token, written
 * as decimal text. The wire and the default CLI keep raw integers (base units, scaled prices), so
 * the conversion is exact or refused, never rounded: an order for a different size than typed
 * would be worse than an error. Decimals come from the chain's mint metadata (chain method
 * listMints); see docs/getting-started.md "Human units".
 */

const U64_MAX = (1n << 64n) - 1n;
const DECIMAL_TEXT = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;
/** Longest decimal text taken: more digits than any u64 in any unit needs. */
const DECIMAL_TEXT_MAX = 60;

/**
 * Reads decimal text as raw units where one whole unit is 10^places raw units. `places` may be
 * negative (one raw unit is then worth 10^-places whole units). Refuses signs, exponents, more
 * fraction digits than the unit has, and values beyond u64, naming `what` in the message.
 */
export function parseDecimal(text: string, places: number, what: string): bigint {
  const match = text.length <= DECIMAL_TEXT_MAX ? DECIMAL_TEXT.exec(text) : null;
  if (match === null) {
    throw new CliError(
      `${what}: expected a decimal number such as 1.5 (no sign, exponent or separators), got "${text}"`,
    );
  }
  const whole = match[1] as string;
  const fraction = match[2] ?? '';
  const digits = BigInt(whole + fraction);
  const shift = places - fraction.length;
  let raw: bigint;
  if (shift >= 0) {
    raw = digits * 10n ** BigInt(shift);
  } else {
    const divisor = 10n ** BigInt(-shift);
    if (digits % divisor !== 0n) {
      throw new CliError(
        places > 0
          ? `${what}: too many decimals in ${text}; at most ${places} (the smallest step is ${formatDecimal(1n, places)})`
          : `${what}: ${text} is finer than the smallest step, ${formatDecimal(1n, places)}`,
      );
    }
    raw = digits / divisor;
  }
  if (raw > U64_MAX) throw new CliError(`${what}: ${text} is more than the largest amount a u64 holds`);
  return raw;
}

/** Writes raw units as the shortest exact decimal text (no trailing zeros, no exponent). */
export function formatDecimal(raw: bigint, places: number): string {
  if (raw < 0n) return `-${formatDecimal(-raw, places)}`;
  if (places <= 0) return String(raw * 10n ** BigInt(-places));
  const text = String(raw).padStart(places + 1, '0');
  const whole = text.slice(0, -places);
  const fraction = text.slice(-places).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** The metadata of a mint that human units need (chain method listMints). */
export interface MintInfo {
  readonly mint: string;
  readonly symbol: string;
  readonly decimals: number;
}

/** What of a market human units need: its mints and its price scale (GET /instruments). */
export interface MarketTermsForUnits {
  readonly symbol: string;
  readonly base_mint: string;
  readonly quote_mint: string;
  readonly price_scale: bigint;
}

/**
 * The power of ten a human price is multiplied by to get the raw price of a market: a raw price
 * is quote base units per base unit times price_scale, so one quote token per base token is
 * price_scale * 10^quote_decimals / 10^base_decimals raw. Null when price_scale is not a power
 * of ten (human prices would not be exact decimals).
 */
export function pricePlaces(priceScale: bigint, baseDecimals: number, quoteDecimals: number): number | null {
  const text = String(priceScale);
  if (!/^10*$/.test(text)) return null;
  return text.length - 1 + quoteDecimals - baseDecimals;
}

/** Conversions of one market: amounts in base tokens, prices in quote tokens per base token. */
export class MarketUnits {
  readonly base: MintInfo;
  readonly quote: MintInfo;
  readonly #pricePlaces: number | null;
  readonly #market: string;

  constructor(market: MarketTermsForUnits, mints: ReadonlyMap<string, MintInfo>) {
    const described = (mint: string) => {
      const info = mints.get(mint);
      if (info === undefined) {
        throw new CliError(
          `the chain does not describe mint ${mint} of ${market.symbol} (no decimals known): drop --human and give raw units`,
        );
      }
      return info;
    };
    this.base = described(market.base_mint);
    this.quote = described(market.quote_mint);
    this.#pricePlaces = pricePlaces(market.price_scale, this.base.decimals, this.quote.decimals);
    this.#market = market.symbol;
  }

  parseAmount(text: string, what = '--amount'): bigint {
    return parseDecimal(text, this.base.decimals, `${what} (${this.base.symbol})`);
  }

  formatAmount(raw: bigint): string {
    return formatDecimal(raw, this.base.decimals);
  }

  parsePrice(text: string, what = '--price'): bigint {
    return parseDecimal(text, this.#places(), `${what} (${this.quote.symbol} per ${this.base.symbol})`);
  }

  formatPrice(raw: bigint): string {
    return formatDecimal(raw, this.#places());
  }

  #places(): number {
    if (this.#pricePlaces === null) {
      throw new CliError(
        `${this.#market}'s price scale is not a power of ten, so its prices have no exact decimal form: drop --human`,
      );
    }
    return this.#pricePlaces;
  }
}

/**
 * A quantity flag before the market is known: raw mode takes whole numbers only (saying how to
 * give tokens instead), human mode any decimal text, converted once the market's units are read.
 */
export function rawOrHuman(text: string, human: boolean, what: string): bigint | string {
  if (human) return text;
  if (/^(0|[1-9][0-9]{0,19})$/.test(text) && BigInt(text) <= U64_MAX) return BigInt(text);
  const hint = /^[0-9]+\.[0-9]+$/.test(text) ? '; to give tokens instead of base units, add --human' : '';
  throw new CliError(`${what}: expected a whole number of raw units from 0 to ${U64_MAX}${hint}`);
}
