/**
 * A venue that stops applies nothing its journal will not hold (D119). The venue's own commands keep
 * coming while it stops: the chain's beat catches the core up to the slot (ticks) and the watches
 * record roots, prices and settlement outcomes until they are detached, if they ever are. Once the
 * journal is closing it refuses appends, so a command applied then would be in the live state and
 * in no journal: the state the stopped venue reports (and announced) would not be the state a
 * replay, the next boot or a standby rebuilds. Checked against the real journals: a three-node
 * JetStream cluster of the machine's nats-server, and the file journal in a temporary directory.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { VenueCore } from '@venue/core';
import { isVenueError } from '@venue/protocol';
import {
  JOURNAL_TEST_MARKET,
  ManualClock,
  type NatsCluster,
  openingCommands,
  orderBody,
  placeCommand,
  startNatsCluster,
  TEST_CORE_CONFIG,
  TEST_SESSION,
  testListing,
} from '@venue/testing';
import fc from 'fast-check';
import { openJetStreamLink, recoverFromJetStream, recoverJournal } from '../src/journal/index.ts';
import { bootEngine, type StateDirectory } from '../src/venue/engine-boot.ts';
import type { UnstampedCommand, VenueEngine } from '../src/venue/venue-engine.ts';

const KEY = randomBytes(32);
let cluster: NatsCluster;
let dir: string;
/** Engines a test booted, closed in `after` even when the test failed half-way. */
const opened: VenueEngine[] = [];

before(async () => {
  cluster = await startNatsCluster();
  dir = await mkdtemp(join(tmpdir(), 'venue-engine-stop-'));
});

after(async () => {
  for (const engine of opened) await engine.close().catch(() => undefined);
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function boot(clock: ManualClock, state: StateDirectory) {
  const booted = await bootEngine({
    config: TEST_CORE_CONFIG,
    clock,
    sessionId: TEST_SESSION,
    markets: [testListing(JOURNAL_TEST_MARKET)],
    state,
  });
  opened.push(booted.engine);
  return booted;
}

/** Roots and a price, so that places are accepted. */
function open(engine: VenueEngine): void {
  for (const command of openingCommands()) {
    if (command.type === 'roots' || command.type === 'oracle_price') {
      const { slot: _slot, ...unstamped } = command;
      engine.record(unstamped as UnstampedCommand);
    }
  }
}

let orderIds = 70_000;
/** A resting place; resolves true once acknowledged, false if refused (SHUTTING_DOWN, a rule). */
async function place(engine: VenueEngine, clock: ManualClock): Promise<boolean> {
  orderIds += 1;
  const order = orderBody({
    id: orderIds,
    side: orderIds % 2 === 0 ? 'bid' : 'ask',
    price: orderIds % 2 === 0 ? 900n : 1100n,
    amount: 1_000_000n * (1n + BigInt(orderIds % 5)),
    expiry: clock.slot() + 1000n,
  });
  const { slot: _slot, ...unstamped } = placeCommand(order, 0n, `acct-${orderIds % 3}`);
  try {
    await engine.submit(unstamped as UnstampedCommand);
    return true;
  } catch (error) {
    assert.ok(isVenueError(error), String(error));
    return false;
  }
}

/** One beat of the chain, as the settlement pipeline and the oracle monitor give it: a slot, a price. */
function beat(engine: VenueEngine, clock: ManualClock, price: bigint): void {
  clock.advanceSlots(1n);
  engine.catchUp();
  engine.record({ type: 'oracle_price', marketId: JOURNAL_TEST_MARKET.marketId, price });
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('a stopping venue applies nothing its journal does not hold', () => {
  test('on JetStream: beats during and after the stop leave the state a replay of the stream rebuilds', async () => {
    const stream = 'engine-stop';
    const clock = new ManualClock();
    const { engine } = await boot(clock, {
      directory: '/nonexistent-the-journal-is-in-the-broker',
      sealingKey: KEY,
      jetstream: {
        settings: { servers: cluster.servers, stream, replicas: 3 },
        holder: 'stopping',
        lease: { ttlMs: 3000, renewEveryMs: 1000 },
      },
    });
    open(engine);
    for (let i = 0; i < 10; i += 1) assert.equal(await place(engine, clock), true, 'a place before the stop');
    beat(engine, clock, 1001n);
    await engine.settled();
    const journaledAt = engine.journal?.lastSeq;
    // The stop, with the chain beating on: while the journal drains and releases its lease and
    // connection, and after.
    let stopped = false;
    const stopping = engine.close().then(() => {
      stopped = true;
    });
    let beats = 0;
    while (!stopped) {
      beat(engine, clock, 1002n + BigInt(beats++));
      await pause();
    }
    await stopping;
    for (let i = 0; i < 3; i += 1) beat(engine, clock, 2000n + BigInt(i));
    assert.equal(await place(engine, clock), false, 'a place after the stop is refused');
    assert.ok(beats > 0, 'the chain beat while the venue stopped');

    const link = await openJetStreamLink({ servers: cluster.servers, stream, replicas: 3 });
    try {
      const replay = new VenueCore(TEST_CORE_CONFIG);
      const recovery = await recoverFromJetStream({
        link,
        sealingKey: KEY,
        ignoreSnapshots: true,
        onCommand: (command) => void replay.apply(command),
      });
      assert.ok(
        recovery.position.seq >= (journaledAt ?? 0n),
        'every record acknowledged before the stop is in the stream',
      );
      assert.equal(engine.journal?.lastSeq, recovery.position.seq, 'the stream ends at the journal’s last');
      assert.equal(engine.core.slot, replay.slot, 'the stopped venue is at the slot the stream replays to');
      assert.equal(engine.core.stateHash(), replay.stateHash(), 'the stopped venue equals a replay');
    } finally {
      await link.close();
    }
  });

  test('on files: any interleaving of places, beats and the stop leaves the state a replay rebuilds', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('place', 'beat', 'pause'), { minLength: 4, maxLength: 30 }),
        fc.array(fc.constantFrom('place', 'beat', 'pause'), { minLength: 1, maxLength: 30 }),
        async (before, during) => {
          const directory = join(dir, `files-${run++}`);
          const clock = new ManualClock();
          const { engine } = await boot(clock, { directory, sealingKey: KEY, snapshots: 'inline' });
          open(engine);
          let price = 1000n;
          const acknowledged: Promise<boolean>[] = [];
          const act = async (step: string) => {
            if (step === 'place') acknowledged.push(place(engine, clock));
            else if (step === 'beat') {
              price += 1n;
              beat(engine, clock, price);
            } else await pause();
          };
          for (const step of before) await act(step);
          // The stop starts with commands still in the air; the rest of the steps run while it
          // runs and after it ended.
          const stopping = engine.close();
          for (const step of during) await act(step);
          await stopping;
          for (const step of during) await act(step);
          await Promise.all(acknowledged);

          const replay = new VenueCore(TEST_CORE_CONFIG);
          const recovery = await recoverJournal({
            directory: join(directory, 'journal'),
            sealingKey: KEY,
            ignoreSnapshots: true,
            onCommand: (command) => void replay.apply(command),
          });
          assert.equal(engine.journal?.lastSeq, recovery.position.seq, 'the files end at the journal’s last');
          assert.equal(engine.core.slot, replay.slot, 'the stopped venue is at the slot the files replay to');
          assert.equal(engine.core.stateHash(), replay.stateHash(), 'the stopped venue equals a replay');
        },
      ),
      { numRuns: 40 },
    );
  });
});
