import { randomUUID } from 'node:crypto';
import {
  Base58Address,
  decode,
  Hex,
  JsonNumberToken,
  OneOf,
  parseJsonText,
  Strict,
  stringifyJson,
  U8,
  U64,
} from '@venue/protocol';

/**
 * The few lines of JSON-RPC 2.0 the SDK speaks to the chain simulator (docs/chain-sim.md section
 * 8) for its own chain actions. The SDK may not import the simulator, so this is a client of the
 * wire format only: POST one request object, read one response object, and refuse any answer that
 * is not exactly a JSON-RPC reply to this request. Integers travel as bare JSON integers of any
 * size, which stringifyJson writes and parseJsonText keeps exact.
 */

/** A chain call that has not answered within this time is abandoned with a ChainRpcError. */
export const CHAIN_RPC_TIMEOUT_MS_DEFAULT = 10_000;

/** Largest chain reply read; a deposit or withdraw receipt is a few hundred bytes. */
export const CHAIN_RPC_RESPONSE_BYTES_MAX = 64 * 1024;

/**
 * A failed chain call. `reason` is the chain's machine-readable rejection (`bad_request`,
 * `conflict`, `note_consumed`, ...) when the chain refused the action, and `'transport'` when no
 * valid reply came (unreachable, timed out, or an answer that is not a JSON-RPC reply): in that
 * case the action may or may not have happened.
 */
export class ChainRpcError extends Error {
  readonly method: string;
  readonly reason: string;
  /** The JSON-RPC error code, or 0 for a transport failure. */
  readonly code: number;

  constructor(method: string, reason: string, code: number, message: string, options?: { cause?: unknown }) {
    super(`chain ${method} failed (${reason}): ${message}`, options);
    this.name = 'ChainRpcError';
    this.method = method;
    this.reason = reason;
    this.code = code;
  }
}

/** What the chain answers to a deposit: where the new note's commitment became a leaf. */
export const DepositReceiptSchema = Strict(
  {
    tree_id: U8(),
    leaf_index: U64(),
    commitment: Hex(32),
    note_use_tag: Hex(32),
    root: Hex(32),
    slot: U64(),
  },
  { title: 'DepositReceipt' },
);
export interface DepositReceipt {
  readonly tree_id: number;
  readonly leaf_index: bigint;
  readonly commitment: string;
  readonly note_use_tag: string;
  readonly root: string;
  readonly slot: bigint;
}

/** One JSON-RPC call; the raw `result` (numbers as JsonNumberToken) or a ChainRpcError. */
export async function chainRpcCall(
  url: string,
  method: string,
  params: Record<string, unknown>,
  timeoutMs = CHAIN_RPC_TIMEOUT_MS_DEFAULT,
): Promise<unknown> {
  const id = randomUUID();
  const transport = (message: string, cause?: unknown) =>
    new ChainRpcError(method, 'transport', 0, `${message} (from ${url})`, { cause });
  let text: string;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: stringifyJson({ jsonrpc: '2.0', id, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw transport(`no reply: ${why}; the action may or may not have happened`, error);
  }
  let reply: unknown;
  try {
    reply = parseJsonText(text, CHAIN_RPC_RESPONSE_BYTES_MAX);
  } catch (error) {
    throw transport(`the reply is not JSON: ${error instanceof Error ? error.message : 'unreadable'}`, error);
  }
  if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) {
    throw transport('the reply is not a JSON-RPC response object');
  }
  const fields = reply as Record<string, unknown>;
  const hasResult = Object.hasOwn(fields, 'result');
  const hasError = Object.hasOwn(fields, 'error');
  if (fields['jsonrpc'] !== '2.0' || hasResult === hasError) {
    throw transport('the reply is not a JSON-RPC 2.0 response (jsonrpc "2.0" and one of result or error)');
  }
  // An error about the request itself (unparsable, too large) carries id null.
  if (fields['id'] !== id && !(hasError && fields['id'] === null)) {
    throw transport('the reply answers another request id');
  }
  if (hasResult) return fields['result'];
  throw errorOf(method, fields['error']);
}

/** The chain's error object as a ChainRpcError: its `data.reason`, else the venue error name. */
function errorOf(method: string, error: unknown): ChainRpcError {
  if (typeof error !== 'object' || error === null) {
    return new ChainRpcError(method, 'transport', 0, 'the reply carries a malformed error object');
  }
  const fields = error as Record<string, unknown>;
  const codeToken = fields['code'];
  const code = codeToken instanceof JsonNumberToken ? Number(codeToken.text) : Number.NaN;
  const message = typeof fields['message'] === 'string' ? fields['message'] : 'no message';
  const data = fields['data'];
  const named = (key: string) =>
    typeof data === 'object' && data !== null && typeof (data as Record<string, unknown>)[key] === 'string'
      ? ((data as Record<string, unknown>)[key] as string)
      : undefined;
  const reason = named('reason') ?? named('name') ?? 'rpc_error';
  return new ChainRpcError(method, reason, Number.isFinite(code) ? code : 0, message);
}

/** What the chain answers to a withdraw: the consumed note's tag, and what went where. */
export const WithdrawReceiptSchema = Strict(
  {
    note_use_tag: Hex(32),
    mint: Base58Address(),
    value: U64(),
    recipient: Base58Address(),
    slot: U64(),
  },
  { title: 'WithdrawReceipt' },
);
export interface WithdrawReceipt {
  readonly note_use_tag: string;
  readonly mint: string;
  readonly value: bigint;
  readonly recipient: string;
  readonly slot: bigint;
}

/** The chain's `withdraw` request: the note's opening, the recipient and the authority's signature. */
export interface ChainWithdrawRequest {
  readonly tree_id: number;
  readonly commitment: string;
  readonly owner_commitment: string;
  readonly note_inner_hash: string;
  readonly value: bigint;
  readonly recipient: string;
  readonly signature: string;
}

/** One call whose result must decode against `schema`; an undecodable answer is a transport failure. */
async function decodedCall<T>(
  url: string,
  method: string,
  params: Record<string, unknown>,
  schema: Parameters<typeof decode>[0],
  timeoutMs: number,
): Promise<T> {
  const result = await chainRpcCall(url, method, params, timeoutMs);
  try {
    return decode(schema, result) as T;
  } catch (error) {
    const why = error instanceof Error ? error.message : 'undecodable';
    throw new ChainRpcError(method, 'transport', 0, `the receipt does not decode: ${why}`, {
      cause: error,
    });
  }
}

/**
 * The chain simulator's `withdraw` call, its receipt decoded strictly. A `transport` failure
 * leaves it unknown whether the note was consumed; the chain's `getConsumed` tells.
 */
export function chainWithdraw(
  url: string,
  request: ChainWithdrawRequest,
  timeoutMs = CHAIN_RPC_TIMEOUT_MS_DEFAULT,
): Promise<WithdrawReceipt> {
  return decodedCall(url, 'withdraw', { ...request }, WithdrawReceiptSchema, timeoutMs);
}

/** What the chain's `getConsumed` answers for a consumed note; null while it is not consumed. */
export const ConsumedEntrySchema = Strict(
  { note_use_tag: Hex(32), slot: U64(), by: OneOf(['withdraw', 'merge', 'settlement'] as const) },
  { title: 'ConsumedEntry' },
);
export interface ConsumedEntry {
  readonly note_use_tag: string;
  readonly slot: bigint;
  readonly by: 'withdraw' | 'merge' | 'settlement';
}

/** The chain's record of the note with this use tag being consumed, or null while it is not. */
export async function chainConsumed(
  url: string,
  noteUseTag: string,
  timeoutMs = CHAIN_RPC_TIMEOUT_MS_DEFAULT,
): Promise<ConsumedEntry | null> {
  const result = await chainRpcCall(url, 'getConsumed', { note_use_tag: noteUseTag }, timeoutMs);
  if (result === null) return null;
  try {
    return decode(ConsumedEntrySchema, result);
  } catch (error) {
    const why = error instanceof Error ? error.message : 'undecodable';
    throw new ChainRpcError('getConsumed', 'transport', 0, `the entry does not decode: ${why}`, {
      cause: error,
    });
  }
}

/** The chain simulator's `deposit` call, its receipt decoded strictly. */
export async function chainDeposit(
  url: string,
  request: {
    tree_id: number;
    mint: string;
    value: bigint;
    owner_commitment: string;
    blinding: string;
    spend_authority: string;
  },
  timeoutMs = CHAIN_RPC_TIMEOUT_MS_DEFAULT,
): Promise<DepositReceipt> {
  return decodedCall(url, 'deposit', { ...request }, DepositReceiptSchema, timeoutMs);
}
