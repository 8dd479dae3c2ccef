import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { NONCE_RESERVE_BLOCK } from './limits.ts';
import { ensurePrivateDir, exists, writePrivateFileSync } from './private-files.ts';
import { NonceCounter } from './signing.ts';
import { type Clock, SYSTEM_CLOCK } from './tokens.ts';

/**
 * Nonce counters that survive restarts (spec 2.1 `arrival_nonce`, spec 8: strictly increasing per
 * trading key, for places and for cancels). The clock-derived NonceCounter already starts above an
 * earlier run while the wall clock moves forward; this adds a file so that a clock stepped back,
 * or a burst above 1000 nonces per millisecond, cannot make a restarted bot reuse a value.
 *
 * The file holds, per counter, a reservation: a value at or above every nonce handed out. Before
 * a nonce beyond the reservation is returned, the reservation moves a block ahead and is written
 * and fsynced, so the disk is touched once per block, not per order. A restart starts above the
 * reservation. Within one process `next()` is synchronous, so concurrent tasks get distinct,
 * increasing values; across processes a lock file gives one process the key at a time, because
 * two processes interleaving one key's nonces would have each other's orders refused as stale.
 */

interface Reservations {
  arrival: string;
  cancel: string;
}

/** A NonceCounter that never hands out a value before it is covered by a durable reservation. */
export class DurableNonceCounter extends NonceCounter {
  readonly #persist: (reservedThrough: bigint) => void;
  #reserved: bigint;

  constructor(clock: Clock, reserved: bigint, persist: (reservedThrough: bigint) => void) {
    super(clock, reserved);
    this.#reserved = reserved;
    this.#persist = persist;
  }

  get reservedThrough(): bigint {
    return this.#reserved;
  }

  override next(): bigint {
    const nonce = super.next();
    this.#cover(nonce);
    return nonce;
  }

  override advancePast(nonce: bigint): void {
    super.advancePast(nonce);
    this.#cover(nonce);
  }

  #cover(nonce: bigint): void {
    if (nonce <= this.#reserved) return;
    const reserved = nonce + NONCE_RESERVE_BLOCK - 1n;
    this.#persist(reserved);
    this.#reserved = reserved;
  }
}

/** Both counters of one trading key, backed by `<stateDir>/nonces-<key prefix>.json`. */
export class NonceFile {
  readonly arrival: DurableNonceCounter;
  readonly cancel: DurableNonceCounter;
  readonly #file: string;
  readonly #lock: string;
  #released = false;

  private constructor(file: string, lock: string, clock: Clock, saved: Reservations) {
    this.#file = file;
    this.#lock = lock;
    const values = { arrival: BigInt(saved.arrival), cancel: BigInt(saved.cancel) };
    const save = () =>
      writePrivateFileSync(
        file,
        `${JSON.stringify({ arrival: String(values.arrival), cancel: String(values.cancel) })}\n`,
      );
    this.arrival = new DurableNonceCounter(clock, values.arrival, (through) => {
      values.arrival = through;
      save();
    });
    this.cancel = new DurableNonceCounter(clock, values.cancel, (through) => {
      values.cancel = through;
      save();
    });
  }

  /** Takes the key's lock and reads its reservations; throws if a live process holds the key. */
  static open(stateDir: string, tradingKey: string, clock: Clock = SYSTEM_CLOCK): NonceFile {
    const file = join(stateDir, `nonces-${tradingKey.slice(0, 16)}.json`);
    const lock = `${file}.lock`;
    ensurePrivateDir(stateDir);
    takeLock(lock, tradingKey);
    try {
      const saved: Reservations = exists(file)
        ? (JSON.parse(readFileSync(file, 'utf8')) as Reservations)
        : { arrival: '0', cancel: '0' };
      if (!/^\d{1,20}$/.test(saved.arrival) || !/^\d{1,20}$/.test(saved.cancel)) {
        throw new Error(`${file}: reservations must be decimal u64 strings`);
      }
      return new NonceFile(file, lock, clock, saved);
    } catch (error) {
      rmSync(lock, { force: true });
      throw error;
    }
  }

  get file(): string {
    return this.#file;
  }

  /** Releases the lock; the reservations stay for the next run. */
  close(): void {
    if (this.#released) return;
    this.#released = true;
    rmSync(this.#lock, { force: true });
  }
}

/** An exclusive lock file with the holder's pid; a lock left by a dead process is taken over. */
function takeLock(lock: string, tradingKey: string): void {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lock, 'utf8'));
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
        throw new Error(
          `trading key ${tradingKey.slice(0, 16)}... is in use by process ${holder}; one process per trading key (its nonces must increase)`,
        );
      }
      if (holder === process.pid) {
        throw new Error(`trading key ${tradingKey.slice(0, 16)}... is already open in this process`);
      }
      rmSync(lock, { force: true }); // left behind by a process that died
    }
  }
  throw new Error(`could not take ${lock}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
