import {
  type HealthResponse,
  type InfoResponse,
  ORDER_LIFETIME_SLOTS_MAX,
  type PROOF_MODES,
  type SystemStatusResponse,
  type TimeResponse,
  type VENUE_PAUSE_REASONS,
} from '@venue/protocol';
import type { VenueClock } from '../chain/clock.ts';
import { type RouteHandler, registerRoutes } from './route-registrar.ts';
import type { VenueFastify } from './types.ts';

/**
 * The unauthenticated reads of spec 4.4 that describe the venue itself. Bodies follow the
 * protocol's HealthResponse, TimeResponse, InfoResponse and SystemStatusResponse schemas; u64
 * fields are bigint and leave as bare JSON integers through the server's serializer.
 */

/** What GET /info publishes about this deployment, fixed for the life of a boot. */
export interface VenueParameters {
  readonly settlementEnabled: boolean;
  readonly proofMode: (typeof PROOF_MODES)[number];
  readonly settlementBufferSlots: bigint;
  readonly treeCount: number;
}

/** The venue-wide trading gates at one instant (spec section 1 items 7 and 8). */
export interface VenueGates {
  readonly pauseReasons: readonly (typeof VENUE_PAUSE_REASONS)[number][];
  readonly marketsPaused: number;
}

export interface PublicRouteDeps {
  readonly session: { readonly sessionId: string; readonly bootTimeMs: number };
  readonly clock: VenueClock;
  readonly parameters: VenueParameters;
  readonly gates: () => VenueGates;
}

export function registerPublicRoutes(app: VenueFastify, deps: PublicRouteDeps): void {
  registerRoutes(app, publicRoutes(deps), { clock: deps.clock });
}

function publicRoutes(deps: PublicRouteDeps): RouteHandler[] {
  const { session, clock, parameters } = deps;
  return [
    { method: 'GET', path: '/health', handle: () => ({ status: 'ok' }) satisfies HealthResponse },
    {
      method: 'GET',
      path: '/time',
      handle: () =>
        ({
          slot: clock.slot(),
          finalized_slot: clock.finalizedSlot(),
          slot_duration_ms: clock.slotDurationMs,
          server_time_ms: clock.nowMs(),
        }) satisfies TimeResponse,
    },
    {
      method: 'GET',
      path: '/info',
      handle: () =>
        ({
          interface_version: '4.1.0',
          signature_domain: 'venue-order-v5',
          session_id: session.sessionId,
          boot_time_ms: session.bootTimeMs,
          settlement_enabled: parameters.settlementEnabled,
          proof_mode: parameters.proofMode,
          settlement_buffer_slots: parameters.settlementBufferSlots,
          order_lifetime_slots_max: ORDER_LIFETIME_SLOTS_MAX,
          tree_count: parameters.treeCount,
          stream_path: '/v1/stream',
        }) satisfies InfoResponse,
    },
    { method: 'GET', path: '/system/status', handle: () => systemStatus(deps) },
  ];
}

function systemStatus({ session, clock, gates }: PublicRouteDeps): SystemStatusResponse {
  const current = gates();
  const body: SystemStatusResponse = {
    status: statusOf(current),
    trading_enabled: current.pauseReasons.length === 0,
    pause_reasons: [...current.pauseReasons],
    markets_paused: current.marketsPaused,
    slot: clock.slot(),
    session_id: session.sessionId,
    server_time_ms: clock.nowMs(),
  };
  return body;
}

/** A venue-wide pause outranks paused markets: either way new orders somewhere are refused. */
function statusOf(gates: VenueGates): SystemStatusResponse['status'] {
  if (gates.pauseReasons.length > 0) return 'paused';
  if (gates.marketsPaused > 0) return 'degraded';
  return 'trading';
}
