/**
 * The durable journal (issue 9): acknowledged commands per second with fdatasync on, under many
 * concurrent appenders (group commit), and the time to recover a journal of one million commands.
 *
 * Baseline for throughput: raw appends with the same fsync policy (the same group commit: gather,
 * one write, one fdatasync, then acknowledge) of pre-built buffers of the same size as our records,
 * with no encoding, sealing, CRC or hashing: the disk's limit for this record size.
 *
 * Commands are place orders built by the core fixtures' shape (about 1 KiB encoded, most of it the
 * proof and signature hex), a pool of distinct ones cycled. Recovery is timed from opening the
 * directory to the last command handed on (read, CRC, hash chain, open, decode); applying the
 * commands to a core is the core benchmark's business, not timed here. --quick recovers 100,000
 * commands instead of 1,000,000 and says so in the figure's name.
 *
 * Snapshot pause: a venue holding many resting orders (100,000; --quick 30,000) takes snapshots
 * while 64 concurrent clients place orders through the sequencer and await each acknowledgement. We
 * record how long the sequencer's thread stops (the event loop's longest delay, perf_hooks
 * monitorEventLoopDelay) and the acknowledgement latency (max and p99), with snapshots produced by
 * the snapshot replica on its worker thread, against the same run with inline snapshots (composed
 * on the sequencer's thread, as before the replica) as the baseline.
 *
 * The journal on JetStream against the file journal: journal-jetstream.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type Command, type CoreConfig, type PlaceCommand, VenueCore } from '@venue/core';
import type { PlaceOrder } from '@venue/protocol';
import {
  JOURNAL_TEST_MARKET,
  ManualClock,
  openingCommands,
  orderBody,
  placeCommand,
  TEST_CORE_CONFIG,
  TEST_SESSION,
  testListing,
} from '@venue/testing';
import {
  FileJournal,
  type Journal,
  plainRecord,
  RecordEncoder,
  recoverJournal,
} from '../packages/adapters/src/journal/index.ts';
import { SnapshotReplica } from '../packages/adapters/src/replica/index.ts';
import { composeSnapshot } from '../packages/adapters/src/venue/state-companion.ts';
import { VenueEngine } from '../packages/adapters/src/venue/venue-engine.ts';
import { type Figure, figure, summarise } from './harness.ts';
import { jetstreamFigures } from './journal-jetstream.ts';
import { type LoopDelay, loopDelayFigures, watchLoop } from './loop-delay.ts';

export const APPENDERS = 256;
const POOL = 1_024;
const KEY = randomBytes(32);

function hex(label: string, bytes = 32): string {
  return createHash('sha256')
    .update(label)
    .digest('hex')
    .slice(0, bytes * 2);
}

function placeCommandOf(i: number): PlaceCommand {
  const order: PlaceOrder = {
    symbol: 'SOL-USDC',
    side: i % 2 === 0 ? 'bid' : 'ask',
    order_type: 'limit',
    amount: BigInt(1 + (i % 50)),
    price_limit: 1000n + BigInt(i % 20) * 10n,
    expiry_slot: 4000n,
    order_id: hex(`order-${i}`, 16),
    note_commitment: hex(`note-${i}`),
    arrival_nonce: BigInt(i),
    trading_key: hex(`key-${i % 64}`),
    trading_key_signature: hex(`sig-${i}`, 32).repeat(2),
    owner_commitment: hex(`owner-${i % 64}`),
    note_inner_hash: hex(`inner-${i}`),
    merkle_root: hex('root'),
    valid_input_proof: hex(`proof-${i}`).repeat(8),
    viewing_pubkey: hex('viewing'),
    session_id: hex('session'),
  };
  return {
    type: 'place',
    order,
    bodyDigest: hex(`digest-${i}`),
    accountId: `acct-${i % 64}`,
    connectionId: null,
    slot: 10n,
  };
}

export const COMMANDS: Command[] = Array.from({ length: POOL }, (_, i) => placeCommandOf(i));

async function withDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'venue-bench-journal-'));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function openFresh(dir: string): Promise<FileJournal> {
  const recovery = await recoverJournal({ directory: dir, sealingKey: KEY, onCommand: () => {} });
  return FileJournal.open({ directory: dir, sealingKey: KEY, recovery });
}

/**
 * `total` commands from APPENDERS concurrent loops, each awaiting its acknowledgement; returns ops/s
 * and the event loop's delay over the appends.
 */
async function driveAppenders(
  append: (i: number) => Promise<unknown>,
  total: number,
): Promise<{ rate: number; loop: LoopDelay }> {
  let next = 0;
  const loop = async () => {
    while (next < total) {
      const i = next++;
      await append(i);
    }
  };
  const watch = watchLoop();
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: APPENDERS }, loop));
  const rate = total / (Number(process.hrtime.bigint() - start) / 1e9);
  return { rate, loop: watch.stop() };
}

async function journalRate(total: number): Promise<{ rate: number; loop: LoopDelay }> {
  return withDir(async (dir) => {
    const journal = await openFresh(dir);
    const measured = await driveAppenders(
      (i) => journal.append(plainRecord(COMMANDS[i % POOL] as Command)),
      total,
    );
    await journal.close();
    return measured;
  });
}

/** The baseline: the same group commit over a plain file, of ready-made buffers. */
async function rawRate(total: number, recordBytes: number): Promise<number> {
  return withDir(async (dir) => {
    const handle = await open(join(dir, 'raw.log'), 'wx');
    const record = randomBytes(recordBytes);
    let gathering: Buffer[] = [];
    let waiters: (() => void)[] = [];
    let flushing = false;
    const flush = async () => {
      flushing = true;
      while (gathering.length > 0) {
        const batch = gathering;
        const done = waiters;
        gathering = [];
        waiters = [];
        const bytes = Buffer.concat(batch);
        let written = 0;
        while (written < bytes.length) written += (await handle.write(bytes, written)).bytesWritten;
        await handle.datasync();
        for (const resolve of done) resolve();
      }
      flushing = false;
    };
    const append = () =>
      new Promise<void>((resolve) => {
        gathering.push(record);
        waiters.push(resolve);
        if (!flushing) void flush();
      });
    const { rate } = await driveAppenders(append, total);
    await handle.close();
    return rate;
  });
}

/** Journals `count` commands (untimed), then times their recovery; returns milliseconds. */
async function recoveryMs(count: number): Promise<number> {
  return withDir(async (dir) => {
    const journal: Journal = await openFresh(dir);
    const chunk = 4_096;
    for (let done = 0; done < count; done += chunk) {
      const acks: Promise<unknown>[] = [];
      for (let i = done; i < Math.min(count, done + chunk); i++)
        acks.push(journal.append(plainRecord(COMMANDS[i % POOL] as Command)));
      await Promise.all(acks);
    }
    await journal.close();
    let replayed = 0;
    const start = process.hrtime.bigint();
    await recoverJournal({ directory: dir, sealingKey: KEY, onCommand: () => void replayed++ });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (replayed !== count) throw new Error(`recovered ${replayed} of ${count} commands`);
    process.stderr.write(
      `journal: recovered ${count} commands in ${ms.toFixed(0)} ms (${Math.round(count / (ms / 1000))} commands/s)\n`,
    );
    return ms;
  });
}

// ---- Snapshot pause ----

const PAUSE_CLIENTS = 64;
const PAUSE_CONFIG: CoreConfig = { ...TEST_CORE_CONFIG, accountOpenOrdersMax: 10_000_000 };

interface PauseRun {
  /** The event loop's longest delay during the run, ms. */
  loopMaxMs: number;
  ackMaxMs: number;
  ackP99Us: number;
  snapshots: number;
}

/** A core with the opening commands and `orders` resting orders (none cross: bids below asks). */
function crowdedCore(orders: number): VenueCore {
  const core = new VenueCore(PAUSE_CONFIG);
  for (const command of openingCommands()) core.apply(command);
  for (let i = 0; i < orders; i++) {
    const side = i % 2 === 0 ? 'bid' : 'ask';
    const price = side === 'bid' ? 900n - BigInt(i % 10) * 10n : 1100n + BigInt(i % 10) * 10n;
    const order = orderBody({
      id: i + 1,
      side,
      price,
      amount: 2n + BigInt(i % 7),
      key: `k${i % 64}`,
      expiry: 4000n,
    });
    core.apply(placeCommand(order, core.slot, `acct-${i % 64}`));
  }
  return core;
}

/**
 * `commands` places from PAUSE_CLIENTS concurrent clients through a journaled engine over a crowded
 * core, with a snapshot due every `interval` records, taken inline or by the replica.
 */
async function pauseRun(
  mode: 'inline' | 'replica' | 'none',
  orders: number,
  commands: number,
): Promise<PauseRun> {
  return withDir(async (dir) => {
    const core = crowdedCore(orders);
    const clock = new ManualClock({ slot: core.slot });
    const recovery = await recoverJournal({ directory: dir, sealingKey: KEY, onCommand: () => {} });
    // 'none' takes no snapshot at all: the floor the other two are measured against (stderr only).
    const interval = mode === 'none' ? commands * 10 : Math.floor(commands / 3);
    const journal = await FileJournal.open({
      directory: dir,
      sealingKey: KEY,
      recovery,
      snapshotIntervalRecords: interval,
      nowMs: clock.nowMs(),
    });
    let replica: SnapshotReplica | null = null;
    if (mode === 'replica') {
      // Seeded with the crowded state as of record 0 (untimed set-up).
      replica = new SnapshotReplica({ config: PAUSE_CONFIG, companions: [], sealingKey: KEY });
      replica.start(composeSnapshot(core.snapshot(), []), journal.position);
      const started = replica;
      journal.onDurable((records) => started.feed(records));
      await replica.ready();
    }
    const errors: unknown[] = [];
    const engine = new VenueEngine(core, clock, journal, (error) => errors.push(error), [], replica);
    await engine.boot(TEST_SESSION);
    await engine.addMarket(testListing(JOURNAL_TEST_MARKET));
    const latencies = new Float64Array(commands);
    const loop = monitorEventLoopDelay({ resolution: 5 });
    let next = 0;
    const client = async () => {
      while (next < commands) {
        const i = next++;
        const side = i % 2 === 0 ? 'bid' : 'ask';
        const price = side === 'bid' ? 900n : 1100n;
        const id = orders + 1 + i;
        const order = orderBody({ id, side, price, amount: 2n, key: `c${i % PAUSE_CLIENTS}`, expiry: 4000n });
        const started = process.hrtime.bigint();
        const { slot: _slot, ...unstamped } = placeCommand(order, 0n, `acct-c${i % PAUSE_CLIENTS}`);
        await engine.submit(unstamped);
        latencies[i] = Number(process.hrtime.bigint() - started) / 1e3;
      }
    };
    loop.enable();
    await Promise.all(Array.from({ length: PAUSE_CLIENTS }, client));
    // close() waits for the snapshot in progress, so its file write on this thread is measured too.
    await engine.close();
    loop.disable();
    if (errors.length > 0) throw new Error(`snapshots failed: ${String(errors[0])}`);
    if (mode === 'replica' && replica?.stats.snapshots === 0) throw new Error('the replica took no snapshot');
    latencies.sort();
    return {
      loopMaxMs: loop.max / 1e6,
      ackMaxMs: (latencies[commands - 1] ?? 0) / 1e3,
      ackP99Us: latencies[Math.floor(commands * 0.99)] ?? 0,
      snapshots: replica?.stats.snapshots ?? 0,
    };
  });
}

async function snapshotPause(quick: boolean): Promise<Figure[]> {
  const orders = quick ? 30_000 : 100_000;
  const commands = quick ? 3_000 : 9_000;
  const runs = quick ? 1 : 3;
  process.stderr.write(
    `journal: snapshot pause with ${orders} resting orders, ${commands} acknowledged places a run, a snapshot every ${Math.floor(commands / 3)} records\n`,
  );
  const inline: PauseRun[] = [];
  const replica: PauseRun[] = [];
  const floor = await pauseRun('none', orders, commands);
  process.stderr.write(
    `journal: without snapshots: loop max ${floor.loopMaxMs.toFixed(0)} ms, ack max ${floor.ackMaxMs.toFixed(0)} ms, p99 ${floor.ackP99Us.toFixed(0)} us\n`,
  );
  for (let run = 0; run < runs; run++) {
    inline.push(await pauseRun('inline', orders, commands));
    replica.push(await pauseRun('replica', orders, commands));
    const [a, b] = [inline.at(-1) as PauseRun, replica.at(-1) as PauseRun];
    process.stderr.write(
      `journal: inline loop max ${a.loopMaxMs.toFixed(0)} ms, ack max ${a.ackMaxMs.toFixed(0)} ms, p99 ${a.ackP99Us.toFixed(0)} us | replica (${b.snapshots} snapshots) loop max ${b.loopMaxMs.toFixed(0)} ms, ack max ${b.ackMaxMs.toFixed(0)} ms, p99 ${b.ackP99Us.toFixed(0)} us\n`,
    );
  }
  const pick = (runs: PauseRun[], key: keyof PauseRun) => summarise(runs.map((r) => r[key]));
  const suffix = quick ? `_${orders / 1000}k_orders_quick` : `_${orders / 1000}k_orders`;
  const against = (key: keyof PauseRun, name: string) => ({
    name: `inline snapshots (sequencer thread), ${name}`,
    value: Math.round(pick(inline, key).median * 10) / 10,
  });
  return [
    figure(
      'journal',
      `snapshot_loop_delay_max${suffix}`,
      'ms',
      'lower',
      pick(replica, 'loopMaxMs'),
      against('loopMaxMs', 'event-loop delay max'),
    ),
    figure(
      'journal',
      `snapshot_ack_max${suffix}`,
      'ms',
      'lower',
      pick(replica, 'ackMaxMs'),
      against('ackMaxMs', 'ack max'),
    ),
    figure(
      'journal',
      `snapshot_ack_p99${suffix}`,
      'us',
      'lower',
      pick(replica, 'ackP99Us'),
      against('ackP99Us', 'ack p99'),
    ),
  ];
}

export async function run(quick: boolean): Promise<Figure[]> {
  const total = quick ? 20_000 : 200_000;
  const runs = quick ? 3 : 5;
  const recordBytes = 56 + new RecordEncoder().encode(plainRecord(COMMANDS[0] as Command)).length + 16;
  process.stderr.write(
    `journal: ${APPENDERS} concurrent appenders, ${total} commands a run, ${recordBytes}-byte records\n`,
  );
  await journalRate(total / 10); // warm-up
  await rawRate(total / 10, recordBytes);
  const ours: number[] = [];
  const loops: LoopDelay[] = [];
  const raw: number[] = [];
  for (let run = 0; run < runs; run++) {
    const measured = await journalRate(total);
    ours.push(measured.rate);
    loops.push(measured.loop);
    raw.push(await rawRate(total, recordBytes));
  }
  const rawSummary = summarise(raw);
  const recoveryCount = quick ? 100_000 : 1_000_000;
  if (quick) process.stderr.write('journal: --quick recovers 100,000 commands, not 1,000,000\n');
  const recovery = summarise([await recoveryMs(recoveryCount)]);
  const pauses = await snapshotPause(quick);
  const jetstream = await jetstreamFigures(quick, KEY, COMMANDS, APPENDERS);
  return [
    ...pauses,
    ...jetstream,
    figure('journal', 'acked_commands_fsync', 'commands/s', 'higher', summarise(ours), {
      name: 'raw group-commit appends, same fsync policy',
      value: Math.round(rawSummary.median),
    }),
    figure(
      'journal',
      quick ? 'recovery_100k_commands_quick' : 'recovery_1m_commands',
      'ms',
      'lower',
      recovery,
      null,
    ),
    // The appenders' thread while the journal seals, encodes and group-commits with fdatasync.
    ...loopDelayFigures('journal', 'acked_commands_fsync', loops),
  ];
}
