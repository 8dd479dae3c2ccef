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
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command, PlaceCommand } from '@venue/core';
import type { PlaceOrder } from '@venue/protocol';
import {
  CommandEncoder,
  FileJournal,
  type Journal,
  recoverJournal,
} from '../packages/adapters/src/journal/index.ts';
import { type Figure, figure, summarise } from './harness.ts';

const APPENDERS = 256;
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

const COMMANDS: Command[] = Array.from({ length: POOL }, (_, i) => placeCommandOf(i));

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

/** `total` commands from APPENDERS concurrent loops, each awaiting its acknowledgement; returns ops/s. */
async function driveAppenders(append: (i: number) => Promise<unknown>, total: number): Promise<number> {
  let next = 0;
  const loop = async () => {
    while (next < total) {
      const i = next++;
      await append(i);
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: APPENDERS }, loop));
  return total / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function journalRate(total: number): Promise<number> {
  return withDir(async (dir) => {
    const journal = await openFresh(dir);
    const rate = await driveAppenders((i) => journal.append(COMMANDS[i % POOL] as Command), total);
    await journal.close();
    return rate;
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
    const rate = await driveAppenders(append, total);
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
        acks.push(journal.append(COMMANDS[i % POOL] as Command));
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

export async function run(quick: boolean): Promise<Figure[]> {
  const total = quick ? 20_000 : 200_000;
  const runs = quick ? 3 : 5;
  const recordBytes = 56 + new CommandEncoder().encode(COMMANDS[0] as Command).length + 16;
  process.stderr.write(
    `journal: ${APPENDERS} concurrent appenders, ${total} commands a run, ${recordBytes}-byte records\n`,
  );
  await journalRate(total / 10); // warm-up
  await rawRate(total / 10, recordBytes);
  const ours: number[] = [];
  const raw: number[] = [];
  for (let run = 0; run < runs; run++) {
    ours.push(await journalRate(total));
    raw.push(await rawRate(total, recordBytes));
  }
  const rawSummary = summarise(raw);
  const recoveryCount = quick ? 100_000 : 1_000_000;
  if (quick) process.stderr.write('journal: --quick recovers 100,000 commands, not 1,000,000\n');
  const recovery = summarise([await recoveryMs(recoveryCount)]);
  return [
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
  ];
}
