import type { TSchema } from 'typebox';
import { assert } from '../assert.ts';
import { VenueError } from '../errors/venue-error.ts';
import { JsonNumberToken, printable, stringifyJson } from '../json/json-text.ts';
import { type DecodeOptions, decode } from './decode.ts';
import { toWire } from './encode.ts';
import { CHANNEL_MESSAGES, type ChannelMessage } from './events.ts';
import { SERVER_FRAMES, type ServerFrame } from './stream.ts';

/**
 * Everything the venue sends on the session stream (spec 4.8, 6): replies and notices tagged by
 * `op` (stream.ts), channel messages tagged by `channel` (events.ts). The venue writes each one with
 * `encodeServerMessage` and every client reads it with `decodeServerMessage`, both driven by the
 * same schemas, so a frame the venue can send is a frame the SDK accepts, by construction.
 */
export type ServerMessage = ServerFrame | ChannelMessage;

/** A frame before its connection numbers it: the session adds `seq` when it sends (spec 4.8). */
export type Unsequenced<F> = F extends unknown ? Omit<F, 'seq'> : never;

const ENCODER: unique symbol = Symbol('encodeServerMessage');

/** The schema of a server message: by `channel` for channel messages, else by `op`. */
function schemaOf(message: Unsequenced<ServerMessage>): TSchema {
  return 'channel' in message ? CHANNEL_MESSAGES[message.channel] : SERVER_FRAMES[message.op];
}

/**
 * A server frame's JSON text with its `seq` left open: a channel message goes to every session of
 * an account (or every session, for the tree), and each session numbers it with its own counter.
 */
export class EncodedServerMessage {
  readonly #head: string;
  readonly #tail: string;

  /** Only encodeServerMessage makes one (the key is not exported): no text bypasses the check. */
  constructor(key: typeof ENCODER, head: string, tail: string) {
    assert(key === ENCODER, 'an EncodedServerMessage comes from encodeServerMessage only');
    this.#head = head;
    this.#tail = tail;
  }

  /** The text as one connection sends it, numbered `seq` (from 1, spec 4.8). */
  withSeq(seq: number): string {
    assert(Number.isSafeInteger(seq) && seq >= 1, `seq ${seq} is not a frame number`);
    return `${this.#head}${seq}${this.#tail}`;
  }
}

/**
 * Encodes one server frame through its schema, as REST replies are written (toWire: a u64 the
 * schema carries as a decimal string leaves as one, other u64 values as bare integers). `op` or
 * `channel` comes first, then `seq`, then the fields in the order the builder gave them. The wire
 * value is checked against the schema with the decoder clients use, strictly: a frame its own
 * schema refuses is a programmer error and never leaves (assert), rather than reaching a client
 * that would close the socket over it as a protocol violation.
 */
export function encodeServerMessage(frame: Unsequenced<ServerMessage>): EncodedServerMessage {
  const schema = schemaOf(frame);
  const [key, name] = 'channel' in frame ? ['channel', frame.channel] : ['op', frame.op];
  const wire = toWire(schema, { [key]: name, seq: 1, ...frame });
  let problem: string | null = null;
  try {
    decode(schema, asParsed(wire));
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  assert(problem === null, `a ${name} frame breaks its schema: ${problem}`);
  const text = stringifyJson(wire);
  const head = `{${JSON.stringify(key)}:${JSON.stringify(name)},"seq":`;
  assert(text.startsWith(`${head}1`), `a ${name} frame does not start with its tag and seq`);
  return new EncodedServerMessage(ENCODER, head, text.slice(head.length + 1));
}

/**
 * A wire value as the JSON parser hands it to the decoder: numbers as JsonNumberToken with the text
 * stringifyJson writes for them (a non-integer or an unsafe number is then refused, as on a client).
 */
function asParsed(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'bigint') return new JsonNumberToken(String(value));
  if (Array.isArray(value)) return value.map(asParsed);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) out[key] = asParsed(field);
    return out;
  }
  return value;
}

/**
 * Decodes one parsed server frame (spec 4.8, 6): a channel message by its `channel`, anything else
 * by its `op`. Clients pass `unknownFields: 'ignore'` to read frames of later minor versions; the
 * venue's own tests decode strictly.
 */
export function decodeServerMessage(value: unknown, options: DecodeOptions = {}): ServerMessage {
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    value instanceof JsonNumberToken
  ) {
    throw new VenueError('WRONG_TYPE', 'a server frame must be a JSON object');
  }
  const { op, channel } = value as { op?: unknown; channel?: unknown };
  if (typeof channel === 'string' && Object.hasOwn(CHANNEL_MESSAGES, channel)) {
    return decode(
      CHANNEL_MESSAGES[channel as keyof typeof CHANNEL_MESSAGES] as TSchema,
      value,
      options,
    ) as ChannelMessage;
  }
  if (typeof op !== 'string' || !Object.hasOwn(SERVER_FRAMES, op)) {
    const what = typeof op === 'string' ? `op "${printable(op)}"` : 'a frame without op or channel';
    throw new VenueError('UNKNOWN_OP', `${what} is not a server frame of this interface`);
  }
  return decode(SERVER_FRAMES[op as keyof typeof SERVER_FRAMES] as TSchema, value, options) as ServerFrame;
}
