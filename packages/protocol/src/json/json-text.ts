import { parse, stringify } from 'lossless-json';
import { VenueError } from '../errors/venue-error.ts';
import { JSON_DEPTH_MAX, JSON_TEXT_BYTES_MAX } from '../limits.ts';
import { NOT_SURE, parseWellFormed } from './well-formed-json.ts';

/**
 * A JSON number exactly as the client wrote it. Keeping the source text is what lets the decoder
 * accept u64 values above 2^53 exactly and refuse `1.0`, `1e3` or `-0` as non-canonical; the
 * built-in JSON.parse would silently round or normalise them.
 */
export class JsonNumberToken {
  constructor(readonly text: string) {}
}

/**
 * Parses untrusted JSON text. Numbers come back as JsonNumberToken, a repeated key is refused
 * (even with an equal value: two readers of one body must never disagree), and nesting deeper
 * than JSON_DEPTH_MAX is refused before the recursive parser sees it.
 *
 * Why lossless-json: it is a small, maintained parser whose number hook receives the source text;
 * writing our own JSON tokenizer would be more code to trust for the same result. It decides every
 * refusal. A well-formed text, the usual case, takes a one-pass fast path first (well-formed-json.ts)
 * that returns the same value and hands anything unexpected back to this strict path.
 */
export function parseJsonText(text: string, bytesMax: number = JSON_TEXT_BYTES_MAX): unknown {
  if (Buffer.byteLength(text, 'utf8') > bytesMax) {
    throw new VenueError('BODY_TOO_LARGE', `the JSON text is larger than the limit of ${bytesMax} bytes`);
  }
  const quick = parseWellFormed(text, newNumberToken);
  if (quick !== NOT_SURE) return quick;
  return parseStrictly(text);
}

function newNumberToken(source: string): JsonNumberToken {
  return new JsonNumberToken(source);
}

/**
 * The reference parse, and the one every text the fast path does not vouch for takes: it decides
 * every refusal and its message.
 */
export function parseStrictly(text: string): unknown {
  assertDepthAndUniqueKeys(text, JSON_DEPTH_MAX);
  try {
    return parse(text, null, {
      parseNumber: (source: string) => new JsonNumberToken(source),
      onDuplicateKey: ({ key }) => {
        throw new DuplicateKeyError(key);
      },
    });
  } catch (error) {
    if (error instanceof DuplicateKeyError) {
      throw new VenueError(
        'MALFORMED_JSON',
        `the JSON repeats the key "${printable(error.key)}"; send each key once`,
      );
    }
    const detail = error instanceof Error ? error.message : 'unreadable';
    throw new VenueError('MALFORMED_JSON', `the body is not valid JSON: ${detail}`);
  }
}

class DuplicateKeyError extends Error {
  constructor(readonly key: string) {
    super(key);
  }
}

/**
 * One pass over the text, before the recursive parser sees it: counts open brackets outside strings,
 * refuses a key repeated within one object and a number written with a leading zero or a plus sign. lossless-json calls onDuplicateKey only when the
 * repeated values differ, so `{"side":"bid","side":"bid"}` would pass it silently.
 */
function assertDepthAndUniqueKeys(text: string, depthMax: number): void {
  const objects: (Set<string> | null)[] = []; // per open bracket: keys seen (null for an array)
  let expectKey = false;
  let stringStart = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (stringStart >= 0) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) {
        if (expectKey) assertNewKey(objects.at(-1), text.slice(stringStart, i + 1));
        expectKey = false;
        stringStart = -1;
      }
    } else if (c === 0x22) {
      stringStart = i;
    } else if (c === 0x2d || c === 0x2b || (c >= 0x30 && c <= 0x39)) {
      i = numberEnd(text, i) - 1;
    } else if (c === 0x7b || c === 0x5b) {
      objects.push(c === 0x7b ? new Set() : null);
      expectKey = c === 0x7b;
      if (objects.length > depthMax) {
        throw new VenueError(
          'TOO_DEEP',
          `the JSON nests deeper than ${depthMax} levels; no valid request does`,
        );
      }
    } else if (c === 0x7d || c === 0x5d) {
      objects.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = objects.at(-1) instanceof Set;
    }
  }
}

const NUMBER_RUN = /[-+0-9.eE]+/y;

/**
 * The end of the number-like run at `start`. `007` and `+1` are not JSON, so the parser would call
 * them malformed (1000); they are numbers written non-canonically, which is what 1006 says and what
 * docs/protocol.md promises, so they are refused here with that code instead.
 */
function numberEnd(text: string, start: number): number {
  NUMBER_RUN.lastIndex = start;
  const run = NUMBER_RUN.exec(text)?.[0] ?? text[start] ?? '';
  if (/^-?0[0-9]/.test(run) || run.startsWith('+')) {
    throw new VenueError(
      'NON_CANONICAL_NUMBER',
      `expected a plain number without a plus sign or leading zero, received ${printable(run)}`,
    );
  }
  return start + run.length;
}

function assertNewKey(keys: Set<string> | null | undefined, quoted: string): void {
  if (!(keys instanceof Set)) return;
  let key = quoted.slice(1, -1);
  if (key.includes('\\')) {
    try {
      key = JSON.parse(quoted) as string; // decodes escapes: "\u0061" and "a" are one key
    } catch {
      return; // a malformed string: the parser reports it
    }
  }
  if (keys.has(key))
    throw new VenueError(
      'MALFORMED_JSON',
      `the JSON repeats the key "${printable(key)}"; send each key once`,
    );
  keys.add(key);
}

/**
 * Serialises a value for the wire. bigint values become bare JSON integers (never strings, never
 * rounded), which is how the spec's u64 fields travel.
 */
export function stringifyJson(value: unknown): string {
  const text = stringify(value, undefined, undefined, [
    { test: (v: unknown) => typeof v === 'bigint', stringify: (v: unknown) => (v as bigint).toString() },
    {
      test: (v: unknown) => v instanceof JsonNumberToken,
      stringify: (v: unknown) => (v as JsonNumberToken).text,
    },
  ]);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

/** Shortens and escapes a client-supplied string before it goes into an error message. */
export function printable(value: string, lengthMax = 40): string {
  const clipped = value.length > lengthMax ? `${value.slice(0, lengthMax)}...` : value;
  return JSON.stringify(clipped).slice(1, -1);
}
