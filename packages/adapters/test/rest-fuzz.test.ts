// Fuzzing the REST server over real HTTPS (issue: "A fuzz test sends thousands of malformed bodies,
// headers and paths: every answer is a 4xx envelope, none a 5xx, and the server keeps serving").
//
// One TestVenue, one keep-alive agent, fast-check with a fixed seed. Every request below is
// malformed by construction (a valid request is never generated), so every answer must be a 4xx
// whose body is exactly the spec 7 envelope with a catalogue code whose `http` is the status, and
// every answer carries x-request-id. Bearer tokens are valid where the point is to reach body
// validation behind authentication. Afterwards the server must still answer GET /health and book a
// valid signed order.
//
// Malformed HTTP that Node rejects before Fastify sees it is sent over raw TLS; the server writes
// the envelope straight to the socket for those.
//
// Replay: REST_FUZZ_SEED=<n> node scripts/run-tests.mjs rest-fuzz (the seed is printed on failure).
// Deeper local runs: REST_FUZZ_SCALE=10 multiplies every run count.
import assert from 'node:assert/strict';
import { METHODS } from 'node:http';
import https from 'node:https';
import { after, before, describe, test } from 'node:test';
import tls from 'node:tls';
import {
  AccountSettingsSchema,
  CancelParamsSchema,
  CreateAccountRequestSchema,
  decodeJsonText,
  ERRORS,
  errorNameOf,
  ModifyRequestSchema,
  PlaceOrderSchema,
  ROUTES,
  Strict,
  TokenRequestSchema,
  wireJsonText,
} from '@venue/protocol';
import { type Exchange, httpsCall, TestVenue, type Trader } from '@venue/testing';
import fc from 'fast-check';

const DEFAULT_SEED = 410_2026;
const SEED = integerFromEnv('REST_FUZZ_SEED', DEFAULT_SEED);
const SCALE = Number(process.env['REST_FUZZ_SCALE'] ?? '1');

/** Run counts per property: about 4,000 requests in all, a few seconds on 2 cores. */
const RUNS = {
  bodies: runs(1100),
  mutations: runs(1000),
  contentTypes: runs(150),
  authorization: runs(400),
  headers: runs(200),
  paths: runs(900),
  raw: runs(120),
};

function runs(base: number): number {
  return Math.max(1, Math.round(base * (Number.isFinite(SCALE) && SCALE > 0 ? SCALE : 1)));
}

function integerFromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got "${text}"`);
  return value;
}

// ---- Requests and the envelope check ----

interface Probe {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** Printable description of a probe, the reproducer a failure message carries. */
function describeProbe(probe: Probe): string {
  const body = probe.body === undefined ? '' : ` body=${JSON.stringify(clip(String(probe.body), 400))}`;
  return `${probe.method} ${clip(probe.path, 300)} headers=${JSON.stringify(probe.headers ?? {})}${body}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}...(${text.length} chars)` : text;
}

const CATALOGUE_CODES = new Set<number>(Object.values(ERRORS).map((e) => e.code));

/**
 * The answer to a malformed request: a 4xx, x-request-id present, JSON content type, and a body that
 * is exactly {code, message} with a catalogue code whose HTTP status is this one. HEAD answers carry
 * no body. Returns the code (0 for HEAD).
 */
function assertRefusal(exchange: Exchange, probe: Probe): number {
  const where = `${describeProbe(probe)}\n  -> ${exchange.status} ${clip(exchange.text, 300)}`;
  assert.ok(exchange.status >= 400 && exchange.status < 500, `expected a 4xx: ${where}`);
  const requestId = exchange.headers['x-request-id'];
  assert.ok(typeof requestId === 'string' && requestId.length > 0, `no x-request-id: ${where}`);
  assert.match(String(exchange.headers['content-type']), /^application\/json/, `content type: ${where}`);
  if (probe.method === 'HEAD') {
    assert.equal(exchange.text, '', `a HEAD answer has no body: ${where}`);
    return 0;
  }
  return assertEnvelope(exchange.status, exchange.text, where);
}

function assertEnvelope(status: number, text: string, where: string): number {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    assert.fail(`the body is not JSON: ${where}`);
  }
  assert.ok(typeof body === 'object' && body !== null && !Array.isArray(body), `not an object: ${where}`);
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message'], `not exactly the envelope: ${where}`);
  const { code, message } = body as { code: unknown; message: unknown };
  assert.ok(typeof code === 'number' && Number.isInteger(code), `code is not an integer: ${where}`);
  assert.ok(typeof message === 'string' && message.length > 0, `message is not a string: ${where}`);
  assert.ok(CATALOGUE_CODES.has(code), `code ${code} is not in the catalogue: ${where}`);
  const name = errorNameOf(code);
  assert.ok(name !== undefined);
  assert.equal(
    ERRORS[name].http,
    status,
    `code ${code} (${name}) travels with ${ERRORS[name].http}: ${where}`,
  );
  return code;
}

// ---- Bodies ----

/** A JSON object as ordered [key, value-as-JSON-text] pairs, so values can be any text at all. */
type Entry = readonly [string, string];

function entriesOf(text: string): Entry[] {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return Object.entries(parsed).map(([key, value]) => [key, JSON.stringify(value)] as const);
}

/** The entries of a JSON object text, or null when the text is not one (after an earlier change). */
function objectEntries(text: string): Entry[] | null {
  if (!text.startsWith('{')) return null;
  try {
    return entriesOf(text);
  } catch {
    return null;
  }
}

function textOf(entries: readonly Entry[]): string {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
}

/** Every field name of every body: an "unknown field" is none of these. */
const BODY_SCHEMAS: readonly { properties?: object }[] = [
  PlaceOrderSchema,
  CancelParamsSchema,
  ModifyRequestSchema,
  AccountSettingsSchema,
  CreateAccountRequestSchema,
  TokenRequestSchema,
];
const KNOWN_FIELDS = new Set(BODY_SCHEMAS.flatMap((schema) => Object.keys(schema.properties ?? {})));

const NON_CANONICAL_NUMBERS = [
  '1.0',
  '1e3',
  '1E3',
  '-0',
  '007',
  '00',
  '+1',
  '-1',
  '0.5',
  '.5',
  '5.',
  '0x10',
  '1_000',
  '18446744073709551616',
  '18446744073709551615000',
  '340282366920938463463374607431768211456',
  '1e400',
  '-1e-400',
  'NaN',
  'Infinity',
  '-Infinity',
  '1 2',
  '\u0661\u0662',
];

const headerChar = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
  fc.constant('\t'),
);

/** Deep nesting: `[[[...0]]]` or `{"a":{"a":...0}}`, balanced or not. */
const nestingText = fc
  .record({
    depth: fc.integer({ min: 2, max: 3000 }),
    object: fc.boolean(),
    balanced: fc.boolean(),
  })
  .map(({ depth, object, balanced }) => {
    const open = object ? '{"a":' : '[';
    const close = object ? '}' : ']';
    return `${open.repeat(depth)}0${close.repeat(balanced ? depth : depth - 1)}`;
  });

const hexText = fc
  .oneof(
    fc.stringMatching(/^[0-9a-f]{0,140}$/),
    fc.stringMatching(/^[0-9a-fA-F]{1,70}$/),
    fc.stringMatching(/^0x[0-9a-f]{1,64}$/),
    fc.stringMatching(/^[0-9a-g]{32}$/),
    fc.stringMatching(/^ ?[0-9a-f]{64} ?$/),
  )
  .map((hex) => JSON.stringify(hex));

/** A JSON value text of any kind, valid or not: what a field is replaced with. */
const valueText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? 'null'), weight: 4 },
  { arbitrary: fc.constantFrom(...NON_CANONICAL_NUMBERS), weight: 3 },
  { arbitrary: fc.bigInt({ min: 0n, max: 2n ** 80n }).map(String), weight: 1 },
  { arbitrary: fc.integer({ min: 20, max: 3000 }).map((n) => '9'.repeat(n)), weight: 1 },
  { arbitrary: hexText, weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify(s)), weight: 2 },
  // Raw control characters and NUL inside a string: not valid JSON.
  {
    arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 20 }).map((s) => `"${s}"`),
    weight: 1,
  },
  { arbitrary: nestingText.filter((t) => t.length < 2000), weight: 1 },
  {
    arbitrary: fc.constantFrom('', '"', '{', '}', '[', ',', ':', 'tru', 'nul', '"\\u00"', '"\\x41"'),
    weight: 1,
  },
);

/** One change to a JSON object. `at` is reduced modulo the number of entries. */
type Mutation =
  | { kind: 'replace'; at: number; value: string }
  | { kind: 'hex'; at: number; variant: number }
  | { kind: 'sameShape'; at: number; by: number }
  | { kind: 'remove'; at: number }
  | { kind: 'duplicate'; at: number; value: string | null }
  | { kind: 'unknown'; at: number; key: string; value: string }
  | { kind: 'descend'; at: number; inner: Mutation };

const flatMutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: valueText }),
    weight: 6,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('hex' as const), at: fc.nat(), variant: fc.nat({ max: 7 }) }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('sameShape' as const),
      at: fc.nat(),
      by: fc.integer({ min: 1, max: 1000 }),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('duplicate' as const),
      at: fc.nat(),
      value: fc.option(valueText, { nil: null }),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('unknown' as const),
      at: fc.nat(),
      key: fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 10 })),
      value: valueText,
    }),
    weight: 1,
  },
);

/** Variants of a hex string that are never the same string: length, case, alphabet, prefix. */
function hexVariant(hex: string, variant: number): string {
  switch (variant) {
    case 0:
      return hex.slice(0, -1);
    case 1:
      return `${hex}0`;
    case 2:
      return hex.slice(0, -2);
    case 3:
      return `${hex}00`;
    case 4:
      return `0x${hex}`;
    case 5:
      return `g${hex.slice(1)}`;
    case 6:
      return ` ${hex}`;
    default:
      return /[a-f]/.test(hex) ? hex.toUpperCase() : `${hex.slice(0, -1)}G`;
  }
}

const ENUM_VALUES = ['bid', 'ask', 'limit', 'ioc', 'fok', 'SOL-USDC', 'ETH-USDC', 'trader', 'admin'];

/**
 * Another value of the same shape, so that the body still decodes and the change must be caught by
 * the signature or the venue's rules: one hex digit changed, a u64 moved, an enum swapped.
 */
function sameShape(original: string, by: number): string | null {
  const hex = /^"([0-9a-f]+)"$/.exec(original)?.[1];
  if (hex !== undefined) {
    const at = by % hex.length;
    const digit = ((Number.parseInt(hex[at] ?? '0', 16) + 1 + (by % 15)) % 16).toString(16);
    return JSON.stringify(`${hex.slice(0, at)}${digit}${hex.slice(at + 1)}`);
  }
  const decimal = /^"(\d+)"$/.exec(original)?.[1];
  if (decimal !== undefined) return JSON.stringify(String(BigInt(decimal) + BigInt(by)));
  if (/^\d+$/.test(original)) return String(BigInt(original) + BigInt(by));
  if (original === 'true' || original === 'false') return original === 'true' ? 'false' : 'true';
  const others = ENUM_VALUES.filter((v) => JSON.stringify(v) !== original);
  const isEnum = ENUM_VALUES.some((v) => JSON.stringify(v) === original);
  return isEnum ? JSON.stringify(others[by % others.length]) : null;
}

/** Applies a mutation; null when it would leave the object unchanged (such a case is skipped). */
function mutate(entries: readonly Entry[], mutation: Mutation): Entry[] | null {
  const index = mutation.at % entries.length;
  const target = entries[index];
  if (target === undefined) return null;
  const [key, original] = target;
  const out = [...entries];
  switch (mutation.kind) {
    case 'replace':
      if (mutation.value === original) return null;
      out[index] = [key, mutation.value];
      return out;
    case 'hex': {
      const value = /^"[0-9a-f]+"$/.test(original) ? original.slice(1, -1) : null;
      if (value === null) return null;
      out[index] = [key, JSON.stringify(hexVariant(value, mutation.variant))];
      return out;
    }
    case 'sameShape': {
      const changed = sameShape(original, mutation.by);
      if (changed === null) return null;
      out[index] = [key, changed];
      return out;
    }
    case 'remove':
      out.splice(index, 1);
      return out;
    case 'duplicate':
      out.splice(index + 1, 0, [key, mutation.value ?? original]);
      return out;
    case 'unknown':
      if (KNOWN_FIELDS.has(mutation.key)) return null;
      out.splice(index, 0, [mutation.key, mutation.value]);
      return out;
    case 'descend': {
      const nested = objectEntries(original);
      if (nested === null || nested.length === 0) return null;
      const inner = mutate(nested, mutation.inner);
      if (inner === null) return null;
      out[index] = [key, textOf(inner)];
      return out;
    }
  }
}

type BodySchema = Parameters<typeof decodeJsonText>[0];

/** A route that takes a body, with a valid body to start from and the token that reaches it. */
interface BodyTarget {
  name: string;
  method: string;
  path: string;
  token: string | undefined;
  /** A valid body; every generated body differs from it in a way the route must refuse. */
  valid: string;
  /**
   * Set when a schema-valid body would be accepted (not an order, whose signature breaks on any
   * change): such generated bodies are skipped, since they are not malformed.
   */
  acceptedShape: BodySchema | undefined;
  /** The body carries a signed order: every order-route answer must leave the core untouched. */
  order: boolean;
}

/** Whole-body malformations of `valid`. */
function bodyText(target: BodyTarget): fc.Arbitrary<string | Buffer> {
  const valid = target.valid;
  return fc.oneof(
    { arbitrary: fc.nat({ max: valid.length - 1 }).map((n) => valid.slice(0, n)), weight: 3 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 300 }), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 300 }), weight: 1 },
    { arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)), weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null'), weight: 3 },
    { arbitrary: nestingText, weight: 1 },
    // The valid body with bytes around it: a BOM, NUL, a second value, a trailing comma.
    {
      arbitrary: fc
        .constantFrom('\ufeff', '\u0000', '\u2028', '{}', ',', '"', ']', '\u00a0')
        .chain((junk) =>
          fc.constantFrom(`${junk}${valid}`, `${valid}${junk}`, `${valid.slice(0, -1)}${junk}}`),
        ),
      weight: 2,
    },
    // A valid body re-encoded as UTF-16 or Latin-1 bytes.
    {
      arbitrary: fc.constantFrom(Buffer.from(valid, 'utf16le'), Buffer.from(`\ufeff${valid}`, 'utf16le')),
      weight: 1,
    },
    // Field-level changes (also covered in depth by the mutation property).
    {
      arbitrary: flatMutation
        .map((m) => mutate(entriesOf(valid), m))
        .map((e) => (e === null ? '' : textOf(e))),
      weight: 4,
    },
  );
}

/** Field-level changes of `valid`, descending into nested objects (a modify's replacement). */
function mutationOf(target: BodyTarget): fc.Arbitrary<string> {
  const nested = entriesOf(target.valid).some(([, value]) => value.startsWith('{'));
  const mutation = nested
    ? fc.oneof(
        flatMutation,
        fc.record({ kind: fc.constant('descend' as const), at: fc.nat(), inner: flatMutation }),
      )
    : flatMutation;
  return fc
    .array(mutation, { minLength: 1, maxLength: 3 })
    .map((mutations) => {
      let entries: Entry[] | null = entriesOf(target.valid);
      for (const m of mutations) {
        entries = entries === null ? null : mutate(entries, m);
      }
      return entries === null ? null : textOf(entries);
    })
    .filter((text): text is string => text !== null && text !== target.valid);
}

/** True when the body would be accepted as valid by a route that is not an order route. */
function acceptable(target: BodyTarget, body: string | Buffer): boolean {
  if (target.acceptedShape === undefined) return false;
  const text = String(body);
  if (text.trim() === '') return true;
  try {
    decodeJsonText(target.acceptedShape, text);
    return true;
  } catch {
    return false;
  }
}

// ---- Paths ----

const LISTED_SYMBOLS = new Set(['SOL-USDC', 'ETH-USDC']);

type PathCorruption =
  | { kind: 'badPercent'; at: number; token: string }
  | { kind: 'unknownSegment'; at: number; segment: string }
  | { kind: 'dot'; at: number; segment: string }
  | { kind: 'empty'; at: number }
  | { kind: 'long'; at: number; length: number; char: string }
  | { kind: 'badParam'; value: string }
  | { kind: 'unicode'; at: number; text: string; raw: boolean }
  | { kind: 'repeatedQuery'; name: string; values: [string, string] }
  | { kind: 'unknownQuery'; name: string; value: string }
  | { kind: 'badQueryValue'; value: string };

const queryText = fc.string({ unit: 'binary', maxLength: 30 }).map(encodeURIComponent);

const pathCorruption: fc.Arbitrary<PathCorruption> = fc.oneof(
  fc.record({
    kind: fc.constant('badPercent' as const),
    at: fc.nat(),
    token: fc.constantFrom(
      '%',
      '%z',
      '%zz',
      '%c3%28',
      '%ff',
      '%e0%80%80',
      '%ed%a0%80',
      '%f8%88%80%80%80',
      '%0',
      '%%',
    ),
  }),
  fc.record({
    kind: fc.constant('unknownSegment' as const),
    at: fc.nat(),
    segment: fc.string({ maxLength: 30 }).map((s) => `~${encodeURIComponent(s)}`),
  }),
  fc.record({
    kind: fc.constant('dot' as const),
    at: fc.nat(),
    segment: fc.constantFrom('.', '..', '%2e', '%2E%2E', '.%2e', '...'),
  }),
  fc.record({ kind: fc.constant('empty' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('long' as const),
    at: fc.nat(),
    length: fc.integer({ min: 101, max: 12_000 }),
    char: fc.constantFrom('a', '0', 'A', '%41', '-'),
  }),
  fc.record({
    kind: fc.constant('badParam' as const),
    value: fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.stringMatching(/^[0-9a-fA-F]{0,70}$/),
    ),
  }),
  fc.record({
    kind: fc.constant('unicode' as const),
    at: fc.nat(),
    text: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }),
    raw: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('repeatedQuery' as const),
    name: fc.oneof(
      fc.constantFrom('tree_id', 'commitment', 'from', 'limit', 'tx_id', 'market_id', 'batch_seq'),
      queryText.filter((s) => s.length > 0),
    ),
    values: fc.tuple(queryText, queryText),
  }),
  fc.record({
    kind: fc.constant('unknownQuery' as const),
    name: queryText.map((s) => `zz${s}`),
    value: queryText,
  }),
  fc.record({
    kind: fc.constant('badQueryValue' as const),
    value: fc.constantFrom('01', '-1', '1.0', '1e3', '', 'x', '%zz', '18446744073709551616', 'AB'.repeat(32)),
  }),
);

/** Builds a request path from a route template that at least one corruption makes invalid. */
function corruptPath(template: string, paramValue: string, corruptions: PathCorruption[]): string | null {
  const segments = template
    .split('/')
    .slice(1)
    .map((s) => (s.startsWith(':') ? encodeURIComponent(paramValue) : s));
  const params = template
    .split('/')
    .map((s, i) => (s.startsWith(':') ? i - 1 : -1))
    .filter((i) => i >= 0);
  const query: string[] = [];
  const route = ROUTES.find((r) => r.path === template && r.query !== undefined);
  for (const c of corruptions) {
    const at = 'at' in c ? c.at % (segments.length + 1) : 0;
    switch (c.kind) {
      case 'badPercent':
        if (at === segments.length) segments.push(c.token);
        else segments[at] = `${segments[at] ?? ''}${c.token}`;
        break;
      case 'unknownSegment':
      case 'dot':
        segments.splice(at, 0, c.segment);
        break;
      case 'empty':
        segments.splice(at, 0, '');
        break;
      case 'long':
        segments.splice(at, 0, c.char.repeat(Math.ceil(c.length / c.char.length)));
        break;
      case 'badParam': {
        const index = params[0];
        if (index === undefined || LISTED_SYMBOLS.has(c.value) || /^[0-9a-f]{32}$/.test(c.value)) return null;
        segments[index] = encodeURIComponent(c.value);
        break;
      }
      case 'unicode':
        // Raw: Latin-1 bytes in the request line, which the HTTP parser itself refuses.
        segments.splice(at, 0, c.raw ? `~${latin1Of(c.text)}` : `~${encodeURIComponent(c.text)}`);
        break;
      case 'repeatedQuery':
        query.push(`${c.name}=${c.values[0]}`, `${c.name}=${c.values[1]}`);
        break;
      case 'unknownQuery':
        query.push(`${c.name}=${c.value}`);
        break;
      case 'badQueryValue':
        // A required parameter with a malformed value; routes without a query take none at all.
        query.push(`${route === undefined ? 'zz' : 'tree_id'}=${c.value}`);
        break;
    }
  }
  return `/${segments.join('/')}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}

/** The characters of `text` as Latin-1 bytes (what node:http sends for a raw path), dropping others. */
function latin1Of(text: string): string {
  const kept = [...text].map((c) => (c.charCodeAt(0) > 0x20 && c.charCodeAt(0) <= 0xff ? c : '\u00e9'));
  return kept.join('');
}

// ---- Raw TLS ----

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes over TLS (optionally in parts with pauses) and reads until the server closes. */
function rawExchange(
  port: number,
  ca: string,
  parts: readonly (string | Buffer)[],
  pauseMs = 0,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = tls.connect({ host: '127.0.0.1', port, ca }, async () => {
      for (const part of parts) {
        if (socket.destroyed) return;
        socket.write(part);
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `no close within 5 s; received: ${JSON.stringify(Buffer.concat(chunks).toString('latin1'))}`,
        ),
      );
    }, 5000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    // A reset after the answer still leaves the answer to check.
    socket.on('error', () => {});
  });
}

/** Splits a byte stream into HTTP/1.1 responses (content-length or chunked), skipping 1xx. */
function parseResponses(bytes: Buffer): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = bytes.toString('latin1');
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) throw new Error(`a truncated response: ${JSON.stringify(rest)}`);
    const [statusLine = '', ...lines] = rest.slice(0, headEnd).split('\r\n');
    const match = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
    if (match === null) throw new Error(`not a status line: ${JSON.stringify(statusLine)}`);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    rest = rest.slice(headEnd + 4);
    const status = Number(match[1]);
    let body = '';
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    } else if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        const size = Number.parseInt(rest.slice(0, lineEnd), 16);
        rest = rest.slice(lineEnd + 2);
        if (!(size > 0)) {
          rest = rest.slice(rest.indexOf('\r\n') + 2);
          break;
        }
        body += rest.slice(0, size);
        rest = rest.slice(size + 2);
      }
    } else if (status >= 200) {
      body = rest;
      rest = '';
    }
    if (status >= 200) out.push({ status, headers, body: Buffer.from(body, 'latin1').toString('utf8') });
  }
  return out;
}

/** Exactly one final answer, and it is a 4xx envelope with x-request-id. */
function assertRawRefusal(bytes: Buffer, request: string): number {
  const where = `raw ${JSON.stringify(clip(request, 300))}\n  -> ${JSON.stringify(clip(bytes.toString('latin1'), 600))}`;
  const responses = parseResponses(bytes);
  assert.equal(responses.length, 1, `expected exactly one answer: ${where}`);
  const [response] = responses;
  assert.ok(response !== undefined);
  assert.ok(response.status >= 400 && response.status < 500, `expected a 4xx: ${where}`);
  assert.ok((response.headers['x-request-id'] ?? '').length > 0, `no x-request-id: ${where}`);
  assert.match(response.headers['content-type'] ?? '', /^application\/json/, `content type: ${where}`);
  return assertEnvelope(response.status, response.body, where);
}

// ---- The fuzz ----

/** Runs one property with the fixed seed; a failure names the seed, the case and the first error. */
async function fuzz<T>(
  name: string,
  arbitrary: fc.Arbitrary<T>,
  numRuns: number,
  check: (value: T) => Promise<void>,
): Promise<void> {
  const details = await fc.check(fc.asyncProperty(arbitrary, check), { seed: SEED, numRuns });
  if (!details.failed) return;
  const cause =
    details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  process.stderr.write(`\nrest-fuzz: "${name}" failed; replay with REST_FUZZ_SEED=${SEED}\n`);
  throw new Error(
    `${name}: failed with REST_FUZZ_SEED=${SEED} (fast-check path ${details.counterexamplePath})\n` +
      `counterexample: ${fc.stringify(details.counterexample)}\n${cause}`,
  );
}

describe('REST fuzz', { concurrency: false }, () => {
  let venue: TestVenue;
  let alice: Trader;
  let dave: Trader;
  let agent: https.Agent;
  let restingOrderId = '';
  /** Requests sent per category, for the report. */
  const sent = new Map<string, number>();
  /** Codes seen, to show the fuzz reached validation behind authentication. */
  const codes = new Map<number, number>();

  function send(category: string, probe: Probe): Promise<Exchange> {
    sent.set(category, (sent.get(category) ?? 0) + 1);
    return httpsCall(venue.port, venue.identity.certPem, probe.path, {
      method: probe.method,
      headers: probe.headers ?? {},
      ...(probe.body === undefined ? {} : { body: probe.body }),
      agent,
      exactHeaders: true,
    }).catch((error: Error) => {
      throw new Error(`${describeProbe(probe)}: ${error.message}`);
    });
  }

  async function refused(category: string, probe: Probe): Promise<number> {
    const code = assertRefusal(await send(category, probe), probe);
    codes.set(code, (codes.get(code) ?? 0) + 1);
    return code;
  }

  let targets: BodyTarget[] = [];

  before(async () => {
    venue = await TestVenue.start();
    alice = await venue.trader('alice');
    dave = await venue.trader('dave');
    agent = new https.Agent({ keepAlive: true, maxSockets: 1 });

    const resting = venue.order({ id: 1, nonce: 1n }, alice.key);
    const placed = await venue.place(alice, resting);
    assert.equal(placed.status, 200, placed.text);
    restingOrderId = resting.order_id;

    const never = venue.order({ id: 2, nonce: 2n }, alice.key);
    const replacement = venue.order({ id: 3, nonce: 3n }, alice.key);
    targets = [
      {
        name: 'place',
        method: 'POST',
        path: '/orders',
        token: alice.token,
        valid: wireJsonText(PlaceOrderSchema, never),
        acceptedShape: undefined,
        order: true,
      },
      {
        name: 'cancel',
        method: 'DELETE',
        path: `/orders/${restingOrderId}`,
        token: alice.token,
        valid: wireJsonText(CancelParamsSchema, venue.cancelParams(restingOrderId, 1n, alice.key)),
        acceptedShape: undefined,
        order: true,
      },
      {
        name: 'modify',
        method: 'PUT',
        path: `/orders/${restingOrderId}`,
        token: alice.token,
        valid: wireJsonText(
          ModifyRequestSchema,
          venue.modifyRequest(restingOrderId, 1n, replacement, alice.key),
        ),
        acceptedShape: undefined,
        order: true,
      },
      {
        name: 'settings',
        method: 'PUT',
        path: '/account/settings',
        token: alice.token,
        valid: '{"cancel_on_disconnect_default":true}',
        acceptedShape: AccountSettingsSchema,
        order: false,
      },
      {
        name: 'create-account',
        method: 'POST',
        path: '/admin/accounts',
        token: venue.adminToken,
        valid: '{"role":"trader","label":"fuzz"}',
        acceptedShape: CreateAccountRequestSchema,
        order: false,
      },
      {
        name: 'login',
        method: 'POST',
        path: '/auth/token',
        token: undefined,
        // Well formed, of no account: a valid shape is refused before any hashing.
        valid: JSON.stringify({
          api_key: 'k'.repeat(24),
          api_secret: 's'.repeat(40),
          passphrase: 'pass-phrase!',
        }),
        acceptedShape: TokenRequestSchema,
        order: false,
      },
      {
        // Takes no body; dave's token is spent only here, so an accepted body would show as a 200.
        name: 'revoke-token',
        method: 'DELETE',
        path: '/auth/token',
        token: dave.token,
        valid: '{}',
        acceptedShape: Strict({}),
        order: false,
      },
      {
        name: 'revoke-account-tokens',
        method: 'POST',
        path: `/admin/accounts/${dave.apiKey}/revoke-tokens`,
        token: venue.adminToken,
        valid: '{}',
        acceptedShape: Strict({}),
        order: false,
      },
    ];
  });

  after(async () => {
    agent?.destroy();
    await venue?.stop();
  });

  /** Trading routes charge a rate limit; time moves on so that the fuzz keeps reaching validation. */
  function refill(): void {
    venue.clock.advanceMs(20);
  }

  function probeFor(target: BodyTarget, body: string | Buffer, headers: Record<string, string> = {}): Probe {
    return {
      method: target.method,
      path: target.path,
      headers: {
        'content-type': 'application/json',
        ...(target.token === undefined ? {} : { authorization: `Bearer ${target.token}` }),
        ...headers,
      },
      body,
    };
  }

  test('malformed JSON bodies behind a valid token: always a 4xx envelope', async (t) => {
    const before = venue.server.engine.core.stateHash();
    const cases = fc
      .constantFrom(...targets)
      .chain((target) => bodyText(target).map((body) => ({ target, body })));
    await fuzz('malformed bodies', cases, RUNS.bodies, async ({ target, body }) => {
      fc.pre(!acceptable(target, body));
      refill();
      await refused('bodies', probeFor(target, body));
    });
    assert.equal(venue.server.engine.core.stateHash(), before, 'a malformed body changed the venue');
    t.diagnostic(`bodies: ${sent.get('bodies')} requests`);
  });

  test('signed bodies with one field changed (any JSON value, hex length, removed, repeated, unknown)', async (t) => {
    const before = venue.server.engine.core.stateHash();
    // Only bodies with fields to change (a route that takes no body has none).
    const withFields = targets.filter((target) => entriesOf(target.valid).length > 0);
    const cases = fc
      .constantFrom(...withFields)
      .chain((target) => mutationOf(target).map((body) => ({ target, body })));
    await fuzz('mutated bodies', cases, RUNS.mutations, async ({ target, body }) => {
      fc.pre(!acceptable(target, body));
      refill();
      await refused('mutations', probeFor(target, body));
    });
    assert.equal(venue.server.engine.core.stateHash(), before, 'a mutated body changed the venue');
    // The signed fields were reached: some mutations decoded and failed on the signature.
    assert.ok((codes.get(ERRORS.BAD_SIGNATURE.code) ?? 0) > 0, 'no mutation reached signature checks');
    t.diagnostic(`mutations: ${sent.get('mutations')} requests`);
  });

  test('a valid signed order under any other content type is 415 1011', async (t) => {
    const order = targets[0];
    assert.ok(order !== undefined);
    const contentType = fc.oneof(
      fc.constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'application/jsonx',
        'application/json-patch+json',
        'application/problem+json',
        'text/json',
        'application/*',
        '*/*',
        'json',
        '',
        'application/json, text/plain',
        'application/json/x',
        'application/ json',
        'application',
        ';application/json',
      ),
      fc.string({ unit: headerChar, maxLength: 60 }),
    );
    const cases = fc.oneof(
      contentType.filter((type) => mediaTypeOf(type) !== 'application/json').map((type) => ({ type })),
      fc.constant({ type: undefined }),
    );
    await fuzz('content types', cases, RUNS.contentTypes, async ({ type }) => {
      refill();
      const headers: Record<string, string> = { authorization: `Bearer ${alice.token}` };
      if (type !== undefined) headers['content-type'] = type;
      const probe = { method: 'POST', path: '/orders', headers, body: order.valid };
      assert.equal(
        await refused('content types', probe),
        ERRORS.UNSUPPORTED_MEDIA_TYPE.code,
        describeProbe(probe),
      );
    });
    t.diagnostic(`content types: ${sent.get('content types')} requests`);
  });

  test('Authorization headers other than a valid trader token are refused with an auth code', async (t) => {
    const token = alice.token;
    const base64url = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_');
    const mangled = fc
      .record({
        kind: fc.constantFrom('replace', 'delete', 'insert', 'truncate', 'swap'),
        at: fc.nat(),
        c: base64url,
      })
      .map(({ kind, at, c }) => mangle(token, kind, at, c))
      .filter((value) => value !== token);
    const header = fc.oneof(
      fc.string({ unit: headerChar, maxLength: 120 }),
      fc.string({ unit: headerChar, maxLength: 60 }).map((s) => `Bearer ${s}`),
      mangled.map((m) => `Bearer ${m}`),
      fc
        .constantFrom(
          'bearer ',
          'BEARER ',
          'Bearer   ',
          'Bearer\t',
          'Bearer',
          'Basic ',
          'Token ',
          'Bearer: ',
          '',
        )
        .chain((scheme) =>
          fc.constantFrom(
            `${scheme}${token}`,
            `${scheme}${token}  `,
            `${scheme}${token}.x`,
            `${scheme}"${token}"`,
          ),
        ),
      fc.constantFrom(
        `Bearer ${venue.adminToken}`,
        `Bearer ${token}, Bearer ${token}`,
        `Bearer ${token} ${token}`,
        `Bearer ${'a'.repeat(2100)}.b.c`,
        `Bearer ${token.split('.').slice(0, 2).join('.')}.`,
        `Bearer ${token.split('.').slice(0, 2).join('.')}.${'A'.repeat(43)}`,
        `Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.${token.split('.')[1] ?? ''}.`,
        'Basic YWxhZGRpbjpvcGVuc2VzYW1l',
      ),
    );
    await fuzz('authorization', header, RUNS.authorization, async (value) => {
      refill();
      const probe = {
        method: 'POST',
        path: '/orders',
        headers: { authorization: value, 'content-type': 'application/json' },
        body: '{}',
      };
      const code = await refused('authorization', probe);
      // Only the scheme is case-insensitive; the token must be the exact one.
      const equivalent = /^bearer +(\S+) *$/i.exec(value.replace(/^[ \t]+|[ \t]+$/g, ''))?.[1] === token;
      if (equivalent) assert.equal(code, ERRORS.MISSING_FIELD.code, describeProbe(probe));
      else
        assert.ok(code >= 1100 && code < 1200, `expected an auth code, got ${code}: ${describeProbe(probe)}`);
    });
    t.diagnostic(`authorization: ${sent.get('authorization')} requests`);
  });

  test('random extra headers and x-request-id values change nothing about the envelope', async (t) => {
    const tokenChar = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+.^_`|~-");
    const reserved = new Set([
      'host',
      'content-length',
      'transfer-encoding',
      'expect',
      'connection',
      'upgrade',
    ]);
    reserved
      .add('authorization')
      .add('content-type')
      .add('keep-alive')
      .add('te')
      .add('trailer')
      .add('x-request-id');
    const extra = fc.dictionary(
      fc
        .string({ unit: tokenChar, minLength: 1, maxLength: 20 })
        .filter((n) => !reserved.has(n.toLowerCase())),
      fc.string({ unit: headerChar, maxLength: 200 }),
      { maxKeys: 20 },
    );
    const requestId = fc.option(
      fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/), fc.string({ unit: headerChar, maxLength: 80 })),
      { nil: undefined },
    );
    const cases = fc.record({
      target: fc.constantFrom(...targets),
      extra,
      requestId,
    });
    await fuzz('headers', cases, RUNS.headers, async ({ target, extra: headers, requestId: id }) => {
      refill();
      const probe = probeFor(target, '{"zz":1}', {
        ...headers,
        ...(id === undefined ? {} : { 'x-request-id': id }),
      });
      const exchange = await send('headers', probe);
      assertRefusal(exchange, probe);
      const echoed = String(exchange.headers['x-request-id']);
      assert.match(echoed, /^[A-Za-z0-9._:-]{1,64}$/, describeProbe(probe));
      // A client id is echoed when it is a short printable token, else replaced (never refused).
      const offered = id?.replace(/^[ \t]+|[ \t]+$/g, '');
      if (offered !== undefined && /^[A-Za-z0-9._:-]{1,64}$/.test(offered)) assert.equal(echoed, offered);
    });
    t.diagnostic(`headers: ${sent.get('headers')} requests`);
  });

  test('random paths, queries and methods: 404, 405 or 400, always the envelope', async (t) => {
    const templates = [...new Set(ROUTES.map((r) => r.path))];
    const methods = METHODS.filter((m) => m !== 'CONNECT');
    const cases = fc.record({
      method: fc.oneof(
        { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD'), weight: 3 },
        { arbitrary: fc.constantFrom(...methods), weight: 1 },
      ),
      template: fc.constantFrom(...templates, '/', '/orders/:order_id/fills', '/v1/stream'),
      param: fc.constantFrom('SOL-USDC', 'aa'.repeat(16), 'k'.repeat(24)),
      corruptions: fc.array(pathCorruption, { minLength: 1, maxLength: 3 }),
      token: fc.constantFrom('none', 'trader', 'admin'),
    });
    await fuzz('paths', cases, RUNS.paths, async ({ method, template, param, corruptions, token }) => {
      const path = corruptPath(
        template,
        template.includes(':order_id') ? restingOrderId : param,
        corruptions,
      );
      fc.pre(path !== null);
      refill();
      // The HTTP parser refuses raw bytes in the request line before the method means anything, and
      // the raw envelope then carries a body even for HEAD, which a HEAD client cannot frame.
      // The same holds for a head over the size limit (431 from the socket).
      const rawBytes = corruptions.some((c) => c.kind === 'unicode' && c.raw) || (path ?? '').length > 8000;
      const verb = rawBytes && method === 'HEAD' ? 'GET' : method;
      const headers: Record<string, string> = {};
      if (token === 'trader') headers['authorization'] = `Bearer ${alice.token}`;
      if (token === 'admin') headers['authorization'] = `Bearer ${venue.adminToken}`;
      await refused('paths', { method: verb, path: path ?? '/', headers });
    });
    t.diagnostic(`paths: ${sent.get('paths')} requests`);
  });

  test('malformed HTTP over raw TLS: a 4xx envelope straight from the socket', async (t) => {
    const { port } = venue;
    const ca = venue.identity.certPem;
    const invalidNameChar = fc.constantFrom(
      ' ',
      '"',
      '(',
      ')',
      ',',
      '/',
      ';',
      '<',
      '=',
      '>',
      '?',
      '@',
      '[',
      '\\',
      ']',
      '{',
      '}',
      '\u0000',
      '\u007f',
      '\u00e9',
    );
    const invalidValueChar = fc
      .integer({ min: 0, max: 0x1f })
      .filter((c) => c !== 0x09 && c !== 0x0a && c !== 0x0d)
      .map((c) => String.fromCharCode(c));
    const requestLine = fc
      .string({ unit: 'binary-ascii', maxLength: 120 })
      .map((s) => s.replace(/[\r\n]/g, ''))
      // "GET /x" alone is an HTTP/0.9-style request line, which Node serves.
      .filter((s) => !/^[A-Z-]+ +\S/.test(s));
    const cases = fc.oneof(
      requestLine.map((line) => `${line}\r\nhost: x\r\n\r\n`),
      fc
        .tuple(
          fc.string({ unit: fc.constantFrom(...'abcxyz-'), maxLength: 10 }),
          invalidNameChar,
          fc.string({ maxLength: 10 }),
        )
        .map(
          ([a, bad, b]) =>
            `GET /health HTTP/1.1\r\nhost: x\r\n${a}${bad}${b.replace(/[\r\n:]/g, '')}: 1\r\nconnection: close\r\n\r\n`,
        ),
      fc
        .tuple(fc.string({ maxLength: 10 }), invalidValueChar, fc.string({ maxLength: 10 }))
        .map(
          ([a, bad, b]) =>
            `GET /health HTTP/1.1\r\nhost: x\r\nx-v: ${a.replace(/[\r\n]/g, '')}${bad}${b.replace(/[\r\n]/g, '')}\r\nconnection: close\r\n\r\n`,
        ),
      fc
        .oneof(
          fc.constantFrom('-1', '1.5', 'abc', '0x10', '1 2', '+5', '', '99999999999999999999999', '1,2', '٣'),
          fc
            .string({ maxLength: 12 })
            .map((s) => s.replace(/[\r\n]/g, ''))
            .filter((s) => /[^0-9 \t]/.test(s)),
        )
        .map(
          (length) =>
            `POST /orders HTTP/1.1\r\nhost: x\r\ncontent-length: ${length}\r\nconnection: close\r\n\r\n`,
        ),
      fc
        .oneof(
          fc.constantFrom('zz', '-1', '0x2', '2 3', 'fffffffffffffffffff', ''),
          fc.stringMatching(/^[g-z]{1,8}$/),
        )
        .map(
          (size) =>
            `POST /orders HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${alice.token}\r\ncontent-type: application/json\r\n` +
            `transfer-encoding: chunked\r\nconnection: close\r\n\r\n${size}\r\n{}\r\n0\r\n\r\n`,
        ),
      fc
        .constantFrom('HTTP/1.2', 'HTTP/3.0', 'HTTP/1', 'HTTP/1.1.1', 'http/1.1', 'HTTP/11', 'HTTPS/1.1')
        .map((version) => `GET /health ${version}\r\nhost: x\r\nconnection: close\r\n\r\n`),
    );
    await fuzz('raw', cases, RUNS.raw, async (request) => {
      sent.set('raw', (sent.get('raw') ?? 0) + 1);
      assertRawRefusal(await rawExchange(port, ca, [Buffer.from(request, 'latin1')]), request);
    });
    t.diagnostic(`raw: ${sent.get('raw')} connections`);
  });

  describe('fixed malformed HTTP cases over raw TLS', () => {
    const cases: Array<{ name: string; parts: () => string[]; pauseMs?: number; code?: number }> = [
      { name: 'not a request line', parts: () => ['NOT A REQUEST LINE\r\n\r\n'], code: 1014 },
      {
        name: 'a head over the header limit',
        parts: () => [`GET /health HTTP/1.1\r\nhost: x\r\nx-filler: ${'a'.repeat(17_000)}\r\n\r\n`],
        code: 1015,
      },
      {
        name: 'thousands of headers',
        parts: () => [
          `GET /health HTTP/1.1\r\nhost: x\r\n${Array.from({ length: 3000 }, (_, i) => `x${i}: 1\r\n`).join('')}\r\n`,
        ],
        code: 1015,
      },
      {
        name: 'content-length and transfer-encoding together',
        parts: () => [
          'POST /orders HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n',
        ],
        code: 1014,
      },
      {
        name: 'two different content-lengths',
        parts: () => ['POST /orders HTTP/1.1\r\nhost: x\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nab'],
        code: 1014,
      },
      { name: 'obs-fold', parts: () => ['GET /health HTTP/1.1\r\nhost: x\r\n folded\r\n\r\n'], code: 1014 },
      { name: 'NUL in the path', parts: () => ['GET /\u0000 HTTP/1.1\r\nhost: x\r\n\r\n'], code: 1014 },
      { name: 'bare LF line ends', parts: () => ['GET /health HTTP/1.1\nhost: x\n\n'], code: 1014 },
      { name: 'an HTTP/2 preface', parts: () => ['PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'], code: 1014 },
      {
        name: 'an unknown transfer-encoding',
        parts: () => ['POST /orders HTTP/1.1\r\nhost: x\r\ntransfer-encoding: gzip\r\n\r\n'],
        code: 1014,
      },
      // Found by this fuzz: Node answers the next two itself, without the envelope or x-request-id,
      // and drops a CONNECT without any answer. They pass once the server handles them.
      {
        name: 'HTTP/1.1 without a Host header',
        parts: () => ['GET /health HTTP/1.1\r\nconnection: close\r\n\r\n'],
      },
      {
        name: 'an Expect header other than 100-continue',
        parts: () => ['GET /health HTTP/1.1\r\nhost: x\r\nexpect: foo\r\nconnection: close\r\n\r\n'],
      },
      {
        name: 'the CONNECT method',
        parts: () => ['CONNECT 127.0.0.1:443 HTTP/1.1\r\nhost: 127.0.0.1:443\r\nconnection: close\r\n\r\n'],
      },
      {
        // The 401 goes out as soon as the head is read; the broken chunk after it must not add a
        // second, unsolicited answer on the connection.
        name: 'a broken chunked body after the answer to its head',
        parts: () => [
          'POST /orders HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n',
          'zz\r\nabc\r\n0\r\n\r\n',
        ],
        pauseMs: 150,
      },
    ];
    for (const c of cases) {
      test(c.name, async () => {
        const request = c.parts();
        const code = assertRawRefusal(
          await rawExchange(venue.port, venue.identity.certPem, request, c.pauseMs ?? 0),
          request.join(''),
        );
        if (c.code !== undefined) assert.equal(code, c.code);
      });
    }
  });

  test('a body sent to a GET route is refused, not ignored (the registrar: a route without a body schema takes none)', async () => {
    const probe = {
      method: 'GET',
      path: '/account',
      headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      body: '{"not":"json"',
    };
    assertRefusal(await send('get-body', probe), probe);
  });

  test('afterwards the server still serves: GET /health 200, a valid signed order is booked and cancelled', async (t) => {
    const health = await venue.call('/health', { agent });
    assert.equal(health.status, 200, health.text);
    assert.deepEqual(JSON.parse(health.text), { status: 'ok' });

    const order = venue.order({ id: 4, nonce: 4n }, alice.key);
    const placed = await venue.place(alice, order);
    assert.equal(placed.status, 200, placed.text);
    assert.equal(JSON.parse(placed.text).status, 'accepted');
    const cancelled = await venue.cancel(
      alice,
      restingOrderId,
      venue.cancelParams(restingOrderId, 2n, alice.key),
    );
    assert.equal(cancelled.status, 200, cancelled.text);

    const total = [...sent.values()].reduce((a, b) => a + b, 0);
    t.diagnostic(`seed ${SEED}; ${total} malformed requests: ${JSON.stringify(Object.fromEntries(sent))}`);
    t.diagnostic(`codes seen: ${JSON.stringify(Object.fromEntries([...codes].sort((a, b) => a[0] - b[0])))}`);
  });
});

/** The media type of a Content-Type value as a server reads it: before any `;`, trimmed, lowercased. */
function mediaTypeOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** A token with one change that alters the bytes its segments decode to (never a final character). */
function mangle(token: string, kind: string, at: number, c: string): string {
  const positions = [...token]
    .map((_, i) => i)
    .filter((i) => token[i + 1] !== '.' && i < token.length - 1 && token[i] !== '.');
  const i = positions[at % positions.length] ?? 0;
  switch (kind) {
    case 'replace':
      return token[i] === c ? token : `${token.slice(0, i)}${c}${token.slice(i + 1)}`;
    case 'delete':
      return `${token.slice(0, i)}${token.slice(i + 1)}`;
    case 'insert':
      return `${token.slice(0, i)}${c}${token.slice(i)}`;
    case 'truncate':
      return token.slice(0, i);
    default: {
      const [a = '', b = '', s = ''] = token.split('.');
      return `${b}.${a}.${s}`;
    }
  }
}
