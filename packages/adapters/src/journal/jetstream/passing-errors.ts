/**
 * Which answers of a JetStream cluster pass on their own (docs/durability.md, "Across a leader
 * election"). While a stream or the cluster's metadata group elects a leader, nobody answers a
 * request for it: the client sees a timeout, "no responders" (which @nats-io/jetstream 3.x turns
 * into JetStreamNotEnabled with the RequestError as its cause), a RequestError while its own
 * connection moves to another node, or the API error 10008 "JetStream system temporarily
 * unavailable" (status 503). Each of these is worth asking again; any other error is an answer.
 */
import { JetStreamApiError } from '@nats-io/jetstream';
import { RequestError, TimeoutError } from '@nats-io/transport-node';

/** "JetStream system temporarily unavailable": the cluster's answer while it has no leader. */
const TEMPORARILY_UNAVAILABLE = 10008;

export function isPassingBrokerError(error: unknown): boolean {
  if (error instanceof TimeoutError) return true;
  // A request made while the connection was down or moving: the request never reached a server.
  if (error instanceof RequestError) return true;
  if (error instanceof Error && error.name === 'JetStreamNotEnabled') {
    // No responders (the class is not exported, hence its name); one caused by the API's own 10039
    // is a real "not enabled" and has a JetStreamApiError as its cause.
    return error.cause instanceof RequestError && error.cause.isNoResponders();
  }
  if (error instanceof JetStreamApiError)
    return error.code === TEMPORARILY_UNAVAILABLE || error.status === 503;
  return false;
}

/**
 * The pause before try `attempt` (0-based) of a request that met a passing error: doubling from
 * `firstMs`, never above `maxMs`, so a cluster back from an election is asked again within a second.
 */
export function backoffMs(attempt: number, firstMs = 100, maxMs = 1000): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(attempt, 16));
}
