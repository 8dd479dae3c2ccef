import { JsonNumberToken } from '@venue/protocol';
import { reject } from './errors.ts';

/**
 * JSON-RPC values: integers travel as bare JSON integers of any size (stringifyJson writes bigint
 * exactly; parseJsonText keeps each number's text). Reading them back, an integer becomes a bigint,
 * except under the keys below, which are small counts and indexes typed as numbers in the API.
 * A number that is not a canonical integer (1.0, 1e3, -0, 01) is refused.
 */
const NUMBER_KEYS = new Set([
  'tree_id',
  'match_count',
  'limit',
  'count',
  'ticks',
  'shards',
  'page_leaves',
  'pages_max',
]);

const CANONICAL_INTEGER = /^(?:0|-?[1-9][0-9]*)$/;

export function fromJson(value: unknown, key = ''): unknown {
  if (value instanceof JsonNumberToken) {
    if (!CANONICAL_INTEGER.test(value.text))
      reject(
        'bad_request',
        `${key || 'value'}: expected a canonical integer, received ${value.text.slice(0, 40)}`,
      );
    const integer = BigInt(value.text);
    if (!NUMBER_KEYS.has(key)) return integer;
    if (integer > BigInt(Number.MAX_SAFE_INTEGER) || integer < 0n)
      reject('bad_request', `${key}: out of range`);
    return Number(integer);
  }
  if (Array.isArray(value)) return value.map((item) => fromJson(item, key));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value)) out[name] = fromJson(field, name);
    return out;
  }
  return value;
}
