import { createHash } from 'node:crypto';
import type { ClientRequestArgs } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import tls, { type TLSSocket } from 'node:tls';
import { AttestationError } from './errors.ts';
import { TLS_HANDSHAKE_TIMEOUT_MS } from './limits.ts';

/**
 * TLS connections to the venue, checked by the public key they present rather than by a CA.
 *
 * The venue's certificate is self-signed and lives for one boot (spec 1 item 9), so there is no CA
 * whose signature could vouch for it. What vouches for it is the attestation report, which binds the
 * sha256 of the certificate's SubjectPublicKeyInfo (design decisions section 5). The SDK therefore
 * does its own check: it completes the TLS handshake, hashes the SPKI of the certificate this very
 * socket presented, and compares it with the attested hash. The socket is handed to the HTTP client
 * (or the WebSocket upgrade) only after that comparison passed, so not one byte of a request, let
 * alone a token, is written to a socket whose key differs. OpenSSL's chain validation is switched
 * off (`rejectUnauthorized: false`) precisely because it would always fail on a self-signed
 * certificate and would have to be satisfied by trusting whatever certificate came first; the SPKI
 * comparison replaces it and is stricter (one key, nothing else).
 */

/** sha256 of the DER SubjectPublicKeyInfo of the certificate a TLS socket presented, lowercase hex. */
export function peerSpkiSha256(socket: TLSSocket): string | null {
  const certificate = socket.getPeerX509Certificate();
  if (certificate === undefined) return null;
  const spki = certificate.publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('hex');
}

/**
 * The SPKI hash each socket presented at its handshake, recorded by SpkiAgent. Node does not keep
 * the peer certificate readable for the whole life of a socket, so it is read once, at the
 * handshake, and remembered here for the response that later travels on the socket.
 */
const presentedSpki = new WeakMap<object, string>();

/** The SPKI hash the socket presented at its handshake, when an SpkiAgent opened it. */
export function presentedSpkiSha256(socket: object | null): string | null {
  return socket === null ? null : (presentedSpki.get(socket) ?? null);
}

export interface SpkiAgentOptions {
  /**
   * The attested SPKI hash every socket must present, or `null` for the one agent that fetches the
   * public attestation documents before anything is known (it records, it does not trust).
   */
  readonly pin: string | null;
  readonly keepAlive: boolean;
  /** At most this many sockets at once per origin. */
  readonly socketsMax: number;
}

/**
 * An https.Agent whose sockets are opened by `createConnection` below: TLS without chain validation,
 * then the SPKI comparison, then (and only then) the socket goes to the request. TLS session
 * resumption is off, so every socket shows its certificate afresh.
 */
export class SpkiAgent extends https.Agent {
  readonly pin: string | null;

  constructor(options: SpkiAgentOptions) {
    super({
      keepAlive: options.keepAlive,
      maxSockets: options.socketsMax,
      maxFreeSockets: options.socketsMax,
      maxCachedSessions: 0,
    });
    this.pin = options.pin;
  }

  override createConnection(
    options: ClientRequestArgs,
    callback?: (error: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const host = options.host ?? options.hostname ?? 'localhost';
    const port = Number(options.port ?? 443);
    const socket = tls.connect({
      host,
      port,
      // SNI carries names only; an IP address is never sent as a server name (RFC 6066 section 3).
      ...(isIP(host) === 0 ? { servername: host } : {}),
      // Chain validation cannot pass for a self-signed certificate; the SPKI pin replaces it (above).
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
      minVersion: 'TLSv1.2',
    });
    let settled = false;
    const settle = (error: Error | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.removeListener('error', settle);
      if (error === null) {
        callback?.(null, socket);
      } else {
        socket.destroy();
        callback?.(error, socket);
      }
    };
    const timer = setTimeout(
      () => settle(new Error(`TLS handshake with ${host}:${port} took over ${TLS_HANDSHAKE_TIMEOUT_MS} ms`)),
      TLS_HANDSHAKE_TIMEOUT_MS,
    );
    socket.once('error', settle);
    socket.once('secureConnect', () => settle(this.#refusalOf(socket, host, port)));
    return undefined;
  }

  /**
   * Closes every idle keep-alive socket this agent holds. After the venue restarts or drops its
   * connections, each pooled socket is as dead as the one that just failed; closing them all makes
   * the next request open a new connection instead of trying them one by one. Sockets carrying a
   * request are left alone.
   */
  dropIdleSockets(): void {
    for (const sockets of Object.values(this.freeSockets)) {
      for (const socket of sockets ?? []) socket.destroy();
    }
  }

  #refusalOf(socket: TLSSocket, host: string, port: number): Error | null {
    const presented = peerSpkiSha256(socket);
    if (presented === null) return new Error(`${host}:${port} presented no TLS certificate`);
    presentedSpki.set(socket, presented);
    if (this.pin === null || presented === this.pin) return null;
    return new AttestationError(
      'certificate_mismatch',
      `${host}:${port} presented a TLS key (spki sha256 ${presented}) other than the attested one ` +
        `(${this.pin}); the venue restarted or something stands in between. Connect again to re-attest`,
    );
  }
}
