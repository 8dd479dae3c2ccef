import net from 'node:net';
import tls from 'node:tls';

/**
 * A TCP proxy in front of the venue for the SDK's tests. Each incoming connection is either passed
 * through untouched (the client talks TLS with the venue itself) or intercepted: the proxy ends TLS
 * with its OWN certificate and opens a second TLS connection to the venue, forwarding the plaintext
 * both ways and recording what the client sent. That is exactly a man in the middle holding another
 * self-signed certificate.
 */
export type ProxyMode = 'pass' | 'intercept';

export interface TestProxy {
  readonly port: number;
  /** Plaintext the clients sent through intercepted connections. */
  readonly intercepted: () => string;
  /** Connections accepted so far. */
  readonly connections: () => number;
  /** Destroys every open connection (both sides), as a network failure would. */
  readonly dropAll: () => void;
  readonly close: () => Promise<void>;
}

export async function startProxy(
  venuePort: number,
  credentials: { key: string; cert: string },
  modeOf: (index: number) => ProxyMode,
): Promise<TestProxy> {
  const open = new Set<net.Socket>();
  const seen: Buffer[] = [];
  let count = 0;
  const track = (socket: net.Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = net.createServer((client) => {
    const mode = modeOf(count);
    count += 1;
    track(client);
    if (mode === 'pass') {
      const upstream = net.connect(venuePort, '127.0.0.1');
      track(upstream);
      client.pipe(upstream).pipe(client);
      return;
    }
    const terminated = new tls.TLSSocket(client, { isServer: true, ...credentials });
    track(terminated);
    const upstream = tls.connect({ port: venuePort, host: '127.0.0.1', rejectUnauthorized: false });
    track(upstream);
    terminated.on('data', (chunk: Buffer) => {
      seen.push(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(terminated);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    intercepted: () => Buffer.concat(seen).toString('utf8'),
    connections: () => count,
    dropAll: () => {
      for (const socket of open) socket.destroy();
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
