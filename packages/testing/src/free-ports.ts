import { createServer, type Server } from 'node:net';

/**
 * Ports the kernel hands out for port 0, released again for a child process to bind (cluster
 * nodes, venue instances). All are held at once, so the `count` ports differ from each other.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port for a loopback socket');
    return address.port;
  });
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  return ports;
}

/** One free loopback port (see freePorts). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port as number;
}
