import Type, { type Static } from 'typebox';
import { BYTES } from '../limits.ts';
import { Count, Hex, OneOf, Strict, U64, UnixMs } from './primitives.ts';

/**
 * Bodies of the unauthenticated reads of spec 4.4 that describe the venue itself. The spec leaves
 * them "not shown"; docs/api.md explains each field.
 */

/** GET /health: liveness only. 200 while the process serves requests at all. */
export const HealthResponseSchema = Strict({ status: Type.Literal('ok') }, { title: 'HealthResponse' });
export type HealthResponse = Static<typeof HealthResponseSchema>;

/**
 * GET /time: the venue's view of the chain clock. Clients compute `expiry_slot` from `slot`, never
 * from their local clock alone.
 */
export const TimeResponseSchema = Strict(
  {
    slot: U64({ description: 'Current chain slot as the venue last observed it.' }),
    finalized_slot: U64({ description: 'Newest slot the venue considers final.' }),
    slot_duration_ms: Count(60_000, { description: 'Nominal slot length.' }),
    server_time_ms: UnixMs({ description: 'Venue wall clock at the time of the reply.' }),
  },
  { title: 'TimeResponse' },
);
export type TimeResponse = Static<typeof TimeResponseSchema>;

export const PROOF_MODES = ['groth16', 'stub'] as const;

/** GET /info: what a client needs before it signs anything (spec 4.4: includes the boot session id). */
export const InfoResponseSchema = Strict(
  {
    interface_version: Type.Literal('4.1.0'),
    signature_domain: Type.Literal('venue-order-v5'),
    session_id: Hex(BYTES.sessionId, {
      description: 'Boot session id; sign it into every order and cancel.',
    }),
    boot_time_ms: UnixMs({ description: 'When this boot started.' }),
    settlement_enabled: Type.Boolean({
      description: 'False in simulator or load-test deployments that never settle.',
    }),
    proof_mode: OneOf(PROOF_MODES, { description: 'stub only where settlement is disabled.' }),
    settlement_buffer_slots: U64({
      description: 'expiry_slot must be at least this many slots after the current slot.',
    }),
    order_lifetime_slots_max: U64({
      description: 'expiry_slot may be at most this many slots after the current slot.',
    }),
    tree_count: Count(256, {
      description: 'Number of Merkle shards; valid tree_id values are 0 to tree_count - 1.',
    }),
    stream_path: Type.Literal('/v1/stream'),
  },
  { title: 'InfoResponse' },
);
export type InfoResponse = Static<typeof InfoResponseSchema>;

/** Why new trading is closed venue-wide (spec section 1 item 7, drain of 4.7). */
export const VENUE_PAUSE_REASONS = [
  'attestation_mismatch',
  'signer_mismatch',
  'governance_mismatch',
  'draining',
  'journal_unavailable',
  // The recovered state is older than the chain's settlements, or the chain is behind the state
  // (docs/durability.md "State against the chain").
  'state_behind_chain',
  'chain_behind_state',
] as const;

/** GET /system/status: is the venue trading, and if not, why. */
export const SystemStatusResponseSchema = Strict(
  {
    status: OneOf(['trading', 'paused', 'degraded'] as const, {
      description:
        'trading: all gates open; paused: new trading closed venue-wide; degraded: some markets paused.',
    }),
    trading_enabled: Type.Boolean({ description: 'False when new trading is closed on every market.' }),
    pause_reasons: Type.Array(OneOf(VENUE_PAUSE_REASONS), {
      maxItems: VENUE_PAUSE_REASONS.length,
      uniqueItems: true,
    }),
    markets_paused: Count(1_000_000, { description: 'How many markets have trading_enabled false.' }),
    slot: U64(),
    session_id: Hex(BYTES.sessionId),
    server_time_ms: UnixMs(),
  },
  { title: 'SystemStatusResponse' },
);
export type SystemStatusResponse = Static<typeof SystemStatusResponseSchema>;
