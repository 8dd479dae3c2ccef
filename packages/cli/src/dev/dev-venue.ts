import { mkdir, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import {
  createBootIdentity,
  createHttpServer,
  createWallSlotClock,
  DEV_TREE_COUNT,
  type LogLevel,
  SETTLEMENT_BUFFER_SLOTS,
  type VenueParameters,
} from '@venue/adapters';

/**
 * The all-in-one development venue: one process, a fresh boot identity, the HTTPS API and a
 * wall-clock chain. It grows into decisions section 7's dev mode (chain and oracle simulators, demo
 * markets and accounts) as those parts land; today it serves the public reads only.
 */

export interface DevVenueOptions {
  host: string;
  port: number;
  /** Where the per-boot PUBLIC certificate is written for clients to trust. Never the key. */
  stateDir: string;
  logLevel: LogLevel;
}

export interface DevVenue {
  readonly restUrl: string;
  readonly streamUrl: string;
  /** False until the session stream is implemented; the banner says so. */
  readonly streamServed: boolean;
  readonly sessionId: string;
  readonly certSha256: string;
  readonly spkiSha256: string;
  /** Absolute path of the PEM file holding this boot's certificate. */
  readonly certFile: string;
  stop(): Promise<void>;
}

export const CERT_FILE_NAME = 'venue-cert.pem';

/** This skeleton does not settle, so it must not claim real proofs (InfoResponse: stub only then). */
const DEV_PARAMETERS: VenueParameters = {
  settlementEnabled: false,
  proofMode: 'stub',
  settlementBufferSlots: SETTLEMENT_BUFFER_SLOTS,
  treeCount: DEV_TREE_COUNT,
};

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::']);
const LOOPBACK_NAMES = new Set(['127.0.0.1', '::1', 'localhost']);

export async function startDevVenue(options: DevVenueOptions): Promise<DevVenue> {
  const extraName =
    WILDCARD_HOSTS.has(options.host) || LOOPBACK_NAMES.has(options.host) ? undefined : options.host;
  const identity = await createBootIdentity({
    ...(extraName !== undefined && isIP(extraName) !== 0
      ? { ipAddresses: ['127.0.0.1', '::1', extraName] }
      : {}),
    ...(extraName !== undefined && isIP(extraName) === 0 ? { dnsNames: ['localhost', extraName] } : {}),
  });
  const server = createHttpServer({
    identity,
    clock: createWallSlotClock(),
    parameters: DEV_PARAMETERS,
    log: { level: options.logLevel },
  });
  const { port } = await server.listen({ host: options.host, port: options.port });
  let certFile: string;
  try {
    certFile = await writePublicCertificate(options.stateDir, identity.certPem);
  } catch (error) {
    await server.close();
    throw error;
  }
  const origin = `${urlHost(options.host)}:${port}`;
  return {
    restUrl: `https://${origin}`,
    streamUrl: `wss://${origin}/v1/stream`,
    streamServed: false,
    sessionId: identity.sessionId,
    certSha256: identity.certSha256,
    spkiSha256: identity.spkiSha256,
    certFile,
    stop: () => server.close(),
  };
}

/** Written to a temporary name and renamed, so a reader never sees half a certificate. */
async function writePublicCertificate(stateDir: string, certPem: string): Promise<string> {
  const dir = resolve(stateDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, CERT_FILE_NAME);
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, certPem, { mode: 0o644 });
  await rename(partial, file);
  return file;
}

/** The host as it goes into a URL: wildcards are reached on loopback, IPv6 literals are bracketed. */
function urlHost(host: string): string {
  if (WILDCARD_HOSTS.has(host)) return '127.0.0.1';
  return isIP(host) === 6 ? `[${host}]` : host;
}
