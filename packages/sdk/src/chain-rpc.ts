import { randomUUID } from 'node:crypto';
import {
  type ChainMethod,
  type ChainParams,
  type ChainResult,
  type ConsumedEntry,
  chainRequestText,
  type DepositRequest,
  type NoteReceipt,
  readChainReply,
  type WithdrawReceipt,
  type WithdrawRequest,
} from '@venue/protocol';

/**
 * The SDK's own chain actions over JSON-RPC (docs/chain-sim.md section 11). The SDK may not import
 * the simulator or the venue, so it speaks the chain's wire contract, which the protocol package
 * holds (packages/protocol/src/chain): each request is written by its method's schema and each
 * reply is refused unless it is exactly a JSON-RPC reply to this request whose result decodes
 * strictly against the method's result schema. Integers travel as bare JSON integers of any size.
 */

/** A chain call that has not answered within this time is abandoned with a ChainRpcError. */
export const CHAIN_RPC_TIMEOUT_MS_DEFAULT = 10_000;

/** Largest chain reply read; a deposit or withdraw receipt is a few hundred bytes. */
export const CHAIN_RPC_RESPONSE_BYTES_MAX = 64 * 1024;

/** What the chain answers to a deposit: where the new note's commitment became a leaf. */
export type DepositReceipt = NoteReceipt;
/**
 * The chain's `withdraw` request: the note's commitment and tag, mint, amount, recipient, optional
 * change, the VALID_SPEND proof and the spend authority's signature (no opening).
 */
export type ChainWithdrawRequest = WithdrawRequest;
export type { ConsumedEntry, WithdrawReceipt };

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

/** One JSON-RPC call through the chain contract: the decoded result, or a ChainRpcError. */
export async function chainRpcCall<M extends ChainMethod>(
  url: string,
  method: M,
  params: ChainParams<M>,
  timeoutMs = CHAIN_RPC_TIMEOUT_MS_DEFAULT,
): Promise<ChainResult<M>> {
  const id = randomUUID();
  const transport = (message: string, cause?: unknown) =>
    new ChainRpcError(method, 'transport', 0, `${message} (from ${url})`, { cause });
  let text: string;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: chainRequestText(id, method, params),
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw transport(`no reply: ${why}; the action may or may not have happened`, error);
  }
  const reply = readChainReply(method, id, text, CHAIN_RPC_RESPONSE_BYTES_MAX);
  if (reply.kind === 'result') return reply.result;
  if (reply.kind === 'malformed') throw transport(reply.problem);
  // The chain's rejection, else the protocol error's name.
  throw new ChainRpcError(method, reply.reason ?? reply.venueError ?? 'rpc_error', reply.code, reply.message);
}

/**
 * The chain's `withdraw` call, its receipt decoded strictly. A `transport` failure leaves it
 * unknown whether the note was consumed; the chain's `getConsumed` tells.
 */
export function chainWithdraw(
  url: string,
  request: ChainWithdrawRequest,
  timeoutMs = CHAIN_RPC_TIMEOUT_MS_DEFAULT,
): Promise<WithdrawReceipt> {
  return chainRpcCall(url, 'withdraw', request, timeoutMs);
}

/** The chain's record of the note with this use tag being consumed, or null while it is not. */
export function chainConsumed(
  url: string,
  noteUseTag: string,
  timeoutMs = CHAIN_RPC_TIMEOUT_MS_DEFAULT,
): Promise<ConsumedEntry | null> {
  return chainRpcCall(url, 'getConsumed', { note_use_tag: noteUseTag }, timeoutMs);
}

/** The chain's `deposit` call, its receipt decoded strictly. */
export function chainDeposit(
  url: string,
  request: DepositRequest,
  timeoutMs = CHAIN_RPC_TIMEOUT_MS_DEFAULT,
): Promise<DepositReceipt> {
  return chainRpcCall(url, 'deposit', request, timeoutMs);
}
