/**
 * The journal's test world: a fault-injecting wrapper around its file operations (the real disk,
 * except that the Nth write or the Nth fdatasync throws, as an EIO would), temp state directories,
 * and a seeded stream of core commands. Typed structurally, so it needs nothing the adapters package
 * does not export yet.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Command, VenueCore } from '@venue/core';
import { isVenueError } from '@venue/protocol';
import {
  hex32,
  orderBody,
  placeCommand,
  TEST_CORE_CONFIG,
  TEST_ROOT,
  TEST_SESSION,
  testMarket,
} from './core-fixtures.ts';

interface AppendFileLike {
  write(bytes: Uint8Array): Promise<void>;
  datasync(): Promise<void>;
  close(): Promise<void>;
}

interface JournalFilesLike {
  create(path: string): Promise<AppendFileLike>;
}

export interface FaultPlan {
  /** 1-based index of the write that fails (after the journal opened), or undefined for none. */
  failWrite?: number;
  /** 1-based index of the fdatasync that fails, or undefined for none. */
  failSync?: number;
}

export interface FaultyFiles<F> {
  readonly files: F;
  /** Starts counting (call after the journal opened, so its segment creation is not counted). */
  arm(plan: FaultPlan): void;
  readonly writes: number;
  readonly syncs: number;
}

export function faultyJournalFiles<F extends JournalFilesLike>(base: F): FaultyFiles<F> {
  let plan: FaultPlan | null = null;
  let writes = 0;
  let syncs = 0;
  const io = (what: string) => Object.assign(new Error(`EIO: injected ${what} failure`), { code: 'EIO' });
  const wrap = (file: AppendFileLike): AppendFileLike => ({
    write: async (bytes) => {
      if (plan !== null && ++writes === plan.failWrite) throw io('write');
      await file.write(bytes);
    },
    datasync: async () => {
      if (plan !== null && ++syncs === plan.failSync) throw io('fdatasync');
      await file.datasync();
    },
    close: () => file.close(),
  });
  const files = { ...base, create: async (path: string) => wrap(await base.create(path)) } as F;
  return {
    files,
    arm: (next) => {
      plan = next;
      writes = 0;
      syncs = 0;
    },
    get writes() {
      return writes;
    },
    get syncs() {
      return syncs;
    },
  };
}

/** Runs `body` with a new directory under the OS temp folder, removed afterwards. */
export async function withTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'venue-journal-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const JOURNAL_TEST_MARKET = testMarket('SOL-USDC');

/** The commands that open a venue with one market (SOL-USDC), a root and an oracle price. */
export function openingCommands(oraclePrice: bigint | null = 1000n): Command[] {
  return [
    { type: 'boot', sessionId: TEST_SESSION, slot: 0n },
    { type: 'add_market', market: JOURNAL_TEST_MARKET },
    { type: 'roots', treeId: 0, roots: [TEST_ROOT], slot: 0n },
    { type: 'oracle_price', marketId: JOURNAL_TEST_MARKET.marketId, price: oraclePrice, slot: 0n },
  ];
}

/**
 * `count` seeded random commands that all apply after `core`'s state, decided on a copy of it, so a
 * test can append the whole list at once (refused ones are dropped, as the venue would not journal
 * them).
 */
export function applicableCommands(core: VenueCore, seed: number, count: number): Command[] {
  const shadow = VenueCore.restore(TEST_CORE_CONFIG, core.snapshot());
  const commands: Command[] = [];
  for (const command of randomCommands(shadow, seed, count)) {
    try {
      shadow.apply(command);
      commands.push(command);
    } catch {
      // refused by the core: not journaled
    }
  }
  return commands;
}

/** A seeded stream of places (both sides, crossing prices), cancels and ticks against `core`. */
export function* randomCommands(core: VenueCore, seed: number, count: number): Generator<Command> {
  let state = seed >>> 0;
  const random = (n: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n) as number;
  };
  for (let i = 1; i <= count; i++) {
    const roll = random(10);
    if (roll < 6) {
      const side = random(2) === 0 ? 'bid' : 'ask';
      const key = `k${random(4)}`;
      const body = orderBody({
        id: seed * 1_000_000 + i,
        side,
        key,
        price: 950n + BigInt(random(11)) * 10n,
        amount: 1n + BigInt(random(20)),
        nonce: BigInt(i),
        expiry: core.slot + 200n,
      });
      yield placeCommand(body, core.slot, `acct-${key}`);
    } else if (roll < 8) {
      const key = `k${random(4)}`;
      yield {
        type: 'cancel',
        orderId: orderBody({ id: seed * 1_000_000 + 1 + random(i) }).order_id,
        params: {
          trading_key: hex32(`key-${key}`),
          cancel_nonce: BigInt(i),
          session_id: TEST_SESSION,
          trading_key_signature: '00'.repeat(64),
        },
        accountId: `acct-${key}`,
        slot: core.slot,
      };
    } else yield { type: 'tick', slot: core.slot + 1n };
  }
}

/** Applies a command as the sequencer would: true when the core accepted it (and it is journaled). */
export function applied(core: VenueCore, command: Command): boolean {
  try {
    core.apply(command);
    return true;
  } catch (error) {
    if (isVenueError(error)) return false;
    throw error;
  }
}

export function freshTestCore(): VenueCore {
  return new VenueCore(TEST_CORE_CONFIG);
}
