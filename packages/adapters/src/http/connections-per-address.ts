import { isIPv4, isIPv6, type Server, type Socket } from 'node:net';
import { assert } from '@venue/protocol';

/**
 * The per-address connection cap (CONNECTIONS_PER_ADDRESS_MAX, docs/security.md "Connections per
 * address"). It sees every TCP connection as it is accepted, before TLS: one over the cap is
 * destroyed at once, so refusing it costs no handshake and no HTTP parsing. The client sees its
 * connection reset before the handshake completes.
 */
export class ConnectionsPerAddress {
  readonly #max: number;
  readonly #loopbackCounted: boolean;
  /** Open connections by address key; an entry goes when its count falls to zero. */
  readonly #held = new Map<string, number>();
  #refused = 0;

  constructor(options: { readonly max: number; readonly loopbackCounted: boolean }) {
    assert(Number.isInteger(options.max) && options.max >= 1, `connections per address: ${options.max}`);
    this.#max = options.max;
    this.#loopbackCounted = options.loopbackCounted;
  }

  /** Connections refused for the cap since start (an operator metric). */
  get refused(): number {
    return this.#refused;
  }

  /** Addresses holding at least one connection now; bounded by the server's CONNECTIONS_MAX. */
  get addresses(): number {
    return this.#held.size;
  }

  /** Runs ahead of the TLS server's own listener, so a refused socket is never wrapped. */
  attach(server: Server): void {
    server.prependListener('connection', (socket: Socket) => this.#admit(socket));
  }

  #admit(socket: Socket): void {
    const address = socket.remoteAddress;
    // Already gone (reset during accept): nothing to count.
    if (address === undefined) return;
    if (!this.#loopbackCounted && isLoopback(address)) return;
    const key = addressKey(address);
    const held = this.#held.get(key) ?? 0;
    if (held >= this.#max) {
      this.#refused += 1;
      socket.destroy();
      return;
    }
    this.#held.set(key, held + 1);
    socket.once('close', () => {
      const now = (this.#held.get(key) ?? 1) - 1;
      if (now === 0) this.#held.delete(key);
      else this.#held.set(key, now);
    });
  }
}

/** An IPv4 address as it is; an IPv4-mapped IPv6 address as its IPv4; other IPv6 by their /64. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (isIPv4(address)) return address;
  const bare = address.split('%', 1)[0] ?? address;
  if (!isIPv6(bare)) return address;
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopback(address: string): boolean {
  const key = addressKey(address);
  if (isIPv4(key)) return key.startsWith('127.');
  const bare = address.split('%', 1)[0] ?? '';
  return isIPv6(bare) && ipv6Groups(bare).join(':') === '0:0:0:0:0:0:0:1';
}

/** The eight 16-bit groups of an IPv6 address, '::' expanded, each without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':'));
  let groups = groupsOf(head);
  if (tail !== undefined) {
    const rest = groupsOf(tail);
    groups = [...groups, ...Array<string>(8 - groups.length - rest.length).fill('0'), ...rest];
  }
  return groups.map((group) => Number.parseInt(group, 16).toString(16));
}
