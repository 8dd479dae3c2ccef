import { JSON_DEPTH_MAX } from '../limits.ts';

/**
 * The fast path of parseJsonText (json-text.ts) for the text a client normally sends: one pass that
 * builds the same value the strict path would (numbers as JsonNumberToken with their source text,
 * plain objects and arrays) and gives up, returning NOT_SURE, at the first thing it does not
 * expect: any syntax error, a repeated key, a `__proto__` key, nesting past JSON_DEPTH_MAX, a
 * control character in a string, a number the strict path would refuse (a plus sign or a leading
 * zero). parseJsonText then runs the strict path on the same text, which decides how to refuse it.
 * So an accepted text gets the same value on either path, and a refused one the same error; the
 * fast path only has to be at least as strict, which a property test checks against the strict path.
 *
 * Why: the strict path reads the text twice (a scan for depth, repeated keys and number forms, then
 * lossless-json's parse) and was the largest part of a signed request's cost on the main thread.
 */

/** The fast path could not vouch for the text: run the strict path. */
export const NOT_SURE: unique symbol = Symbol('not sure');

/** A JSON number's source text (json-text.ts JsonNumberToken), made by the caller's constructor. */
type NumberOf = (source: string) => unknown;

let text = '';
let at = 0;
let numberOf: NumberOf = (source) => source;

class NotSure extends Error {}
const GIVE_UP = new NotSure();

export function parseWellFormed(source: string, makeNumber: NumberOf): unknown {
  text = source;
  at = 0;
  numberOf = makeNumber;
  try {
    skipSpace();
    const value = readValue(0);
    skipSpace();
    if (at !== text.length) return NOT_SURE;
    return value;
  } catch (error) {
    if (error === GIVE_UP) return NOT_SURE;
    throw error;
  } finally {
    text = '';
  }
}

function skipSpace(): void {
  for (; at < text.length; at += 1) {
    const c = text.charCodeAt(at);
    // JSON's whitespace: space, tab, line feed, carriage return.
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
  }
}

function readValue(depth: number): unknown {
  const c = text.charCodeAt(at);
  if (c === 0x22) return readString();
  if (c === 0x7b) return readObject(depth + 1);
  if (c === 0x5b) return readArray(depth + 1);
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return readNumber();
  if (text.startsWith('true', at)) {
    at += 4;
    return true;
  }
  if (text.startsWith('false', at)) {
    at += 5;
    return false;
  }
  if (text.startsWith('null', at)) {
    at += 4;
    return null;
  }
  throw GIVE_UP;
}

function readObject(depth: number): Record<string, unknown> {
  if (depth > JSON_DEPTH_MAX) throw GIVE_UP;
  at += 1;
  const object: Record<string, unknown> = {};
  skipSpace();
  if (text.charCodeAt(at) === 0x7d) {
    at += 1;
    return object;
  }
  for (;;) {
    if (text.charCodeAt(at) !== 0x22) throw GIVE_UP;
    const key = readString();
    if (key === '__proto__' || Object.hasOwn(object, key)) throw GIVE_UP;
    skipSpace();
    if (text.charCodeAt(at) !== 0x3a) throw GIVE_UP;
    at += 1;
    skipSpace();
    object[key] = readValue(depth);
    skipSpace();
    const c = text.charCodeAt(at);
    at += 1;
    if (c === 0x7d) return object;
    if (c !== 0x2c) throw GIVE_UP;
    skipSpace();
  }
}

function readArray(depth: number): unknown[] {
  if (depth > JSON_DEPTH_MAX) throw GIVE_UP;
  at += 1;
  const array: unknown[] = [];
  skipSpace();
  if (text.charCodeAt(at) === 0x5d) {
    at += 1;
    return array;
  }
  for (;;) {
    array.push(readValue(depth));
    skipSpace();
    const c = text.charCodeAt(at);
    at += 1;
    if (c === 0x5d) return array;
    if (c !== 0x2c) throw GIVE_UP;
    skipSpace();
  }
}

/** A string without escapes is a slice; one with escapes is decoded by JSON.parse (which checks them). */
function readString(): string {
  const start = at;
  let escaped = false;
  for (at += 1; at < text.length; at += 1) {
    const c = text.charCodeAt(at);
    if (c === 0x22) {
      at += 1;
      if (!escaped) return text.slice(start + 1, at - 1);
      try {
        return JSON.parse(text.slice(start, at)) as string;
      } catch {
        throw GIVE_UP;
      }
    }
    if (c === 0x5c) {
      escaped = true;
      at += 1;
    } else if (c < 0x20) {
      throw GIVE_UP;
    }
  }
  throw GIVE_UP;
}

/** JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, no leading zero before digits. */
function readNumber(): unknown {
  const start = at;
  if (text.charCodeAt(at) === 0x2d) at += 1;
  const first = text.charCodeAt(at);
  if (first === 0x30) {
    at += 1;
    if (isDigit(text.charCodeAt(at))) throw GIVE_UP;
  } else if (first >= 0x31 && first <= 0x39) {
    at = digitsEnd(at);
  } else {
    throw GIVE_UP;
  }
  if (text.charCodeAt(at) === 0x2e) {
    const end = digitsEnd(at + 1);
    if (end === at + 1) throw GIVE_UP;
    at = end;
  }
  const e = text.charCodeAt(at);
  if (e === 0x65 || e === 0x45) {
    at += 1;
    const sign = text.charCodeAt(at);
    if (sign === 0x2b || sign === 0x2d) at += 1;
    const end = digitsEnd(at);
    if (end === at) throw GIVE_UP;
    at = end;
  }
  // A run the strict scan would read further (e.g. `1.2.3`, `1e5e5`, `1-2`) is left to it.
  const next = text.charCodeAt(at);
  if (next === 0x2e || next === 0x2b || next === 0x2d || next === 0x65 || next === 0x45 || isDigit(next)) {
    throw GIVE_UP;
  }
  return numberOf(text.slice(start, at));
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function digitsEnd(from: number): number {
  let end = from;
  while (isDigit(text.charCodeAt(end))) end += 1;
  return end;
}
