import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { assert } from '@venue/protocol';
import type { VenueMetrics } from './venue-metrics.ts';

/**
 * The metrics on a second, loopback-only listener (`metrics_listen` in `venue serve`'s config), for
 * a Prometheus agent on the same host: plain HTTP, `GET /metrics`, no token. Admin tokens expire,
 * which a scrape config cannot follow; what keeps traders out here is the address, since only the
 * host's own processes reach a loopback port. The text is the same as GET /admin/metrics/prometheus.
 */
export interface MetricsListener {
  /** Where a scraper reads, e.g. http://127.0.0.1:9464/metrics. */
  readonly url: string;
  close(): Promise<void>;
}

/** Connections a scraper needs: one, plus a few for an operator's curl. */
const METRICS_CONNECTIONS_MAX = 8;
const METRICS_TIMEOUT_MS = 5_000;

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export async function startMetricsListener(
  metrics: VenueMetrics,
  address: { readonly host: string; readonly port: number },
): Promise<MetricsListener> {
  assert(isLoopbackHost(address.host), `metrics listen on loopback only, not ${address.host}`);
  const server: Server = createServer(
    { headersTimeout: METRICS_TIMEOUT_MS, requestTimeout: METRICS_TIMEOUT_MS },
    (request, response) => {
      const path = (request.url ?? '').split('?')[0];
      if (path !== '/metrics') {
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('only /metrics is served here\n');
        return;
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
        response.end('GET /metrics\n');
        return;
      }
      metrics.scrape().then(
        (text) => {
          response.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
          response.end(request.method === 'HEAD' ? undefined : text);
        },
        () => {
          response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
          response.end('the metrics could not be collected\n');
        },
      );
    },
  );
  server.maxConnections = METRICS_CONNECTIONS_MAX;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${host}:${bound.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
