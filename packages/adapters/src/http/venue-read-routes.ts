import {
  AuctionExplanationSchema,
  asyncApiDocument,
  type InclusionQuery,
  type InstrumentListResponse,
  LEAVES_PAGE_MAX,
  type LeavesQuery,
  openApiDocument,
  type SettlementMetricsResponse,
  type SettlementStatusQuery,
  settlementLookupOf,
  TRANSPARENCY_PAGE_MAX,
  type TransparencyQuery,
  toWire,
  VenueError,
} from '@venue/protocol';
import type { VenueClock } from '../chain/clock.ts';
import type { VenueMetrics } from '../telemetry/venue-metrics.ts';
import type { AuctionExplanations } from '../venue/auction-explanations.ts';
import type { DrainControl } from '../venue/drain-control.ts';
import type { AttestationSource, ChainReads, SettlementTelemetry } from '../venue/ports.ts';
import type { TradingGates } from '../venue/trading-gates.ts';
import type { VenueEngine } from '../venue/venue-engine.ts';
import type { RouteContext, RouteHandler } from './route-registrar.ts';

/**
 * The reads of spec 4.4, 4.5 and the operator reads of 4.7: markets, the note tree, settlement,
 * attestation, the drain and settlement telemetry, plus the generated interface documents.
 */
export interface ReadDeps {
  readonly engine: VenueEngine;
  readonly gates: TradingGates;
  readonly drain: DrainControl;
  readonly clock: VenueClock;
  readonly bootTimeMs: number;
  readonly chain: ChainReads | null;
  readonly attestation: AttestationSource | null;
  readonly settlement: SettlementTelemetry;
  readonly auctions: AuctionExplanations;
  readonly metrics: VenueMetrics;
}

function chainOf(deps: ReadDeps): ChainReads {
  if (deps.chain === null) {
    throw new VenueError(
      'CHAIN_UNAVAILABLE',
      'no settlement chain is attached to this venue; tree and settlement reads need one',
    );
  }
  return deps.chain;
}

function attestationOf(deps: ReadDeps): AttestationSource {
  if (deps.attestation === null) {
    throw new VenueError(
      'ATTESTATION_UNAVAILABLE',
      'this venue has no attestation provider attached; do not send it credentials you care about',
    );
  }
  return deps.attestation;
}

/** Shard ids arrive as decimal strings (query); tree_id is a u8. */
function treeIdOf(text: bigint): number {
  if (text > 255n)
    throw new VenueError('TREE_ID_OUT_OF_RANGE', `tree_id ${text} is not a shard; shards are 0-255`);
  return Number(text);
}

/** `limit` of a paged read: 1 to `max`, default `max`. */
function pageLimit(limit: bigint | undefined, max: number): number {
  if (limit === undefined) return max;
  if (limit < 1n || limit > BigInt(max)) {
    throw new VenueError('OUT_OF_RANGE', `query parameter \`limit\`: must be 1 to ${max}`);
  }
  return Number(limit);
}

export function venueReadRoutes(deps: ReadDeps): RouteHandler[] {
  const openApi = openApiDocument();
  const asyncApi = asyncApiDocument();
  return [
    { method: 'GET', path: '/openapi.json', handle: () => openApi },
    { method: 'GET', path: '/asyncapi.json', handle: () => asyncApi },
    {
      method: 'GET',
      path: '/instruments',
      handle: () => {
        deps.engine.catchUp();
        const body: InstrumentListResponse = { instruments: deps.engine.instruments(deps.gates.paused) };
        return body;
      },
    },
    {
      method: 'GET',
      path: '/instruments/:symbol',
      handle: (context: RouteContext<{ symbol: string }>) =>
        deps.engine.instrument(context.params.symbol, deps.gates.paused),
    },
    { method: 'GET', path: '/tree/root', handle: () => chainOf(deps).roots() },
    {
      method: 'GET',
      path: '/tree/inclusion',
      handle: (context: RouteContext<unknown, InclusionQuery>) =>
        chainOf(deps).inclusion(treeIdOf(BigInt(context.query.tree_id)), context.query.commitment),
    },
    {
      method: 'GET',
      path: '/tree/leaves',
      handle: (context: RouteContext<unknown, LeavesQuery>) =>
        chainOf(deps).leaves(
          treeIdOf(BigInt(context.query.tree_id)),
          BigInt(context.query.from),
          pageLimit(
            context.query.limit === undefined ? undefined : BigInt(context.query.limit),
            LEAVES_PAGE_MAX,
          ),
        ),
    },
    {
      method: 'GET',
      path: '/settlement/status',
      handle: (context: RouteContext<unknown, SettlementStatusQuery>) => {
        // The query is the client's to fix, so it is judged before the chain's availability.
        const lookup = settlementLookupOf(context.query);
        return chainOf(deps).settlementStatus(lookup);
      },
    },
    { method: 'GET', path: '/attestation', handle: () => attestationOf(deps).attestation() },
    {
      method: 'GET',
      path: '/transport-attestation',
      handle: () => attestationOf(deps).transportAttestation(),
    },
    {
      method: 'GET',
      path: '/transparency',
      handle: (context: RouteContext<unknown, TransparencyQuery>) =>
        attestationOf(deps).transparency(
          context.query.from === undefined ? 0n : BigInt(context.query.from),
          pageLimit(
            context.query.limit === undefined ? undefined : BigInt(context.query.limit),
            TRANSPARENCY_PAGE_MAX,
          ),
        ),
    },
    {
      method: 'GET',
      path: '/admin/auctions/:market_id/:batch',
      handle: (context: RouteContext<{ market_id: string; batch: bigint }>) =>
        toWire(AuctionExplanationSchema, deps.auctions.get(context.params.market_id, context.params.batch)),
    },
    { method: 'GET', path: '/admin/drain', handle: () => deps.drain.status() },
    { method: 'POST', path: '/admin/drain', handle: () => deps.drain.begin(deps.clock.nowMs()) },
    { method: 'DELETE', path: '/admin/drain', handle: () => deps.drain.cancel() },
    {
      method: 'GET',
      path: '/admin/metrics/settlement',
      handle: () => {
        const body: SettlementMetricsResponse = {
          slot: deps.clock.slot(),
          since_ms: deps.bootTimeMs,
          markets: deps.engine.markets().map((market) => ({
            symbol: market.symbol,
            market_id: market.marketId,
            ...deps.settlement.market(market.marketId),
          })),
        };
        return body;
      },
    },
    {
      method: 'GET',
      path: '/admin/metrics/prometheus',
      handle: async (context: RouteContext) => {
        deps.engine.catchUp();
        const text = await deps.metrics.scrape();
        context.reply.header('content-type', deps.metrics.contentType);
        return text;
      },
    },
  ];
}
