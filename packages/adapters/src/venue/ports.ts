import type {
  AttestationResponse,
  InclusionProofResponse,
  LeavesResponse,
  MarketSettlementMetrics,
  SettlementLookup,
  SettlementStatusResponse,
  TransparencyResponse,
  TransportAttestationResponse,
  TreeRootsResponse,
} from '@venue/protocol';

/**
 * What the REST layer reads from parts that live outside the venue process's core: the chain
 * (issue 5), the attestation provider (issue 8) and the settlement pipeline (issue 5). Each is an
 * interface here so that the routes, their validation and their tests exist before those parts do;
 * a venue without the part answers with a 503 that says which part is missing, never with
 * invented data.
 */
export interface ChainReads {
  roots(): Promise<TreeRootsResponse>;
  /** Throws NOTE_NOT_FOUND when the commitment is not a leaf of the shard. */
  inclusion(treeId: number, commitment: string): Promise<InclusionProofResponse>;
  leaves(treeId: number, from: bigint, limit: number): Promise<LeavesResponse>;
  /** Throws SETTLEMENT_NOT_FOUND for an unknown batch. */
  settlementStatus(lookup: SettlementLookup): Promise<SettlementStatusResponse>;
}

export interface AttestationSource {
  attestation(): AttestationResponse;
  transportAttestation(): TransportAttestationResponse;
  transparency(from: bigint, limit: number): TransparencyResponse;
}

/** Per-market settlement aggregates (GET /admin/metrics/settlement), by market id. */
export interface SettlementTelemetry {
  market(marketId: string): Omit<MarketSettlementMetrics, 'symbol' | 'market_id'>;
}

/** A venue that does not settle has submitted, confirmed and failed nothing. */
export const NO_SETTLEMENT: SettlementTelemetry = {
  market: () => ({
    queue_depth: 0,
    batches_submitted: 0,
    batches_confirmed: 0,
    batches_failed: 0,
    batch_size_histogram: [],
  }),
};

/** The trading requests intake counts (REST and stream alike). */
export type IntakeAction = 'place' | 'cancel' | 'modify' | 'dead_man';

/** Where intake reports each request's outcome (telemetry/venue-metrics.ts implements it). */
export interface IntakeTelemetry {
  /** `refusal` is null for an accepted request, else what refused it (a VenueError or a fault). */
  intake(action: IntakeAction, refusal: unknown): void;
}
