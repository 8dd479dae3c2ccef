import { performance } from 'node:perf_hooks';
import type { ProofChecks, SignatureChecks } from '../venue/intake-checks.ts';
import type { VenueMetrics } from './venue-metrics.ts';

/**
 * Intake's signature and proof checks, timed for the metrics: wall time from asking to the verdict,
 * so a queue in front of the worker pools shows up as latency. A refusal is timed like a pass.
 */
export function timedSignatureChecks(checks: SignatureChecks, metrics: VenueMetrics): SignatureChecks {
  const timed = <T>(work: Promise<T>, started: number): Promise<T> =>
    work.finally(() => metrics.signatureChecked((performance.now() - started) / 1000));
  return {
    place: (order) => timed(checks.place(order), performance.now()),
    cancel: (orderId, params) => timed(checks.cancel(orderId, params), performance.now()),
    modify: (oldOrderId, request) => timed(checks.modify(oldOrderId, request), performance.now()),
  };
}

export function timedProofChecks(checks: ProofChecks, metrics: VenueMetrics): ProofChecks {
  return {
    check(order) {
      const started = performance.now();
      const done = metrics.proofCheckStarted();
      return checks.check(order).finally(() => done((performance.now() - started) / 1000));
    },
  };
}
