import { assert } from '../assert.ts';
import { U64_MAX } from '../limits.ts';

/**
 * Canonical bytes of the chain's signed messages (settlement batches, locks, governance actions,
 * merges). Fixed-width big-endian integers, raw fixed-size hex fields, and length-prefixed ASCII;
 * every message starts with a NUL-terminated domain tag so that a signature over one kind of
 * message can never be replayed as another.
 */
export class ByteWriter {
  private readonly parts: Buffer[] = [];

  constructor(domain: string) {
    this.ascii(`${domain}\u0000`, false);
  }

  u8(value: number): this {
    assert(Number.isInteger(value) && value >= 0 && value <= 0xff, `u8 out of range: ${value}`);
    this.parts.push(Buffer.from([value]));
    return this;
  }

  u32(value: number): this {
    assert(Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff, `u32 out of range: ${value}`);
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(value);
    this.parts.push(bytes);
    return this;
  }

  u64(value: bigint): this {
    assert(value >= 0n && value <= U64_MAX, `u64 out of range: ${value}`);
    const bytes = Buffer.alloc(8);
    bytes.writeBigUInt64BE(value);
    this.parts.push(bytes);
    return this;
  }

  /** A hex field of a fixed byte length (32 for hashes and keys). */
  hex(value: string, bytes: number): this {
    assert(value.length === bytes * 2 && /^[0-9a-f]*$/.test(value), `expected ${bytes} bytes of hex`);
    this.parts.push(Buffer.from(value, 'hex'));
    return this;
  }

  /** Variable-length hex, u32 length prefix. */
  hexVar(value: string): this {
    assert(value.length % 2 === 0 && /^[0-9a-f]*$/.test(value), 'expected hex');
    this.u32(value.length / 2);
    this.parts.push(Buffer.from(value, 'hex'));
    return this;
  }

  /** ASCII text (addresses), u8 length prefix unless `prefixed` is false. */
  ascii(value: string, prefixed = true): this {
    assert(/^[\x20-\x7e\0]*$/.test(value) && value.length <= 0xff, 'expected short ASCII text');
    if (prefixed) this.u8(value.length);
    this.parts.push(Buffer.from(value, 'ascii'));
    return this;
  }

  bytes(): Uint8Array {
    return new Uint8Array(Buffer.concat(this.parts));
  }
}
