/**
 * The journal on NATS JetStream (issue 22), against a real three-node cluster of the machine's
 * nats-server: the Journal contract (order, durability, recovery, snapshots), broker faults (one
 * node lost: still acknowledging; two lost: stalled with 503 JOURNAL_STALLED, nothing acknowledged
 * lost, resumed when a node returns), fencing of a deposed primary, the lease, and a leak scan of
 * the bytes the brokers store.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Command, VenueCore } from '@venue/core';
import { isVenueError, type VenueError } from '@venue/protocol';
import {
  applicableCommands,
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
import {
  isPassingBrokerError,
  JetStreamJournal,
  JetStreamLease,
  type JetStreamLink,
  LeaseHeldError,
  openJetStreamLink,
  plainRecord,
  readJournalStream,
  recoverFromJetStream,
  StreamStalledError,
} from '../src/journal/index.ts';
import { encodeSnapshotFile } from '../src/journal/snapshot-file.ts';
import { MatchFacts } from '../src/settlement/match-facts.ts';
import { NoteOpenings } from '../src/settlement/note-openings.ts';
import { bootEngine } from '../src/venue/engine-boot.ts';
import { type UnstampedCommand, VenueEngine } from '../src/venue/venue-engine.ts';

const KEY = randomBytes(32);
let cluster: NatsCluster;
const links: JetStreamLink[] = [];
let streams = 0;
/** Engines a test booted, closed in `after` even when the test failed half-way. */
const opened: { close(): Promise<void> }[] = [];

before(async () => {
  cluster = await startNatsCluster();
});

after(async () => {
  for (const engine of opened) await engine.close().catch(() => undefined);
  for (const link of links) await link.close().catch(() => undefined);
  await cluster.stop();
});

async function link(stream: string, on: NatsCluster = cluster): Promise<JetStreamLink> {
  const opened = await openJetStreamLink({ servers: on.servers, stream, replicas: 3 });
  links.push(opened);
  return opened;
}

/** How many messages the stream holds. */
async function streamMessages(stream: string): Promise<bigint> {
  const reader = await link(stream);
  return BigInt((await reader.manager.streams.info(stream)).state.messages);
}

function newStream(): string {
  streams += 1;
  return `venue-test-${streams}`;
}

/** A fresh core and the commands it accepted, for comparing with what the stream gives back. */
async function recoverCore(
  stream: string,
  options: { ignoreSnapshots?: boolean } = {},
  on: NatsCluster = cluster,
) {
  const reader = await link(stream, on);
  let core = new VenueCore(TEST_CORE_CONFIG);
  const seqs: bigint[] = [];
  const recovery = await recoverFromJetStream({
    link: reader,
    sealingKey: KEY,
    ...options,
    onSnapshot: (text) => {
      core = VenueCore.restore(TEST_CORE_CONFIG, text);
    },
    onCommand: (command, seq) => {
      core.apply(command);
      seqs.push(seq);
    },
  });
  return { core, seqs, recovery, reader };
}

async function openJournal(
  stream: string,
  extra: Partial<ConstructorParameters<typeof JetStreamJournal>[0]> = {},
  on: NatsCluster = cluster,
) {
  const { recovery, core, reader } = await recoverCore(stream, {}, on);
  // The stream exists now: start appending only once its leader and replicas are settled.
  await on.waitReady([stream]);
  const journal = new JetStreamJournal({
    link: reader,
    sealingKey: KEY,
    position: recovery.position,
    snapshotSeq: recovery.snapshot?.seq ?? 0n,
    publishTimeoutMs: 500,
    retryPauseMs: 100,
    stallAfterMs: 2000,
    ...extra,
  });
  return { journal, core };
}

/** Applies commands to `core` and appends the accepted ones; returns their append promises. */
function appendAll(journal: JetStreamJournal, core: VenueCore, commands: Iterable<Command>) {
  const appended: Promise<{ seq: bigint }>[] = [];
  for (const command of commands) {
    try {
      core.apply(command);
    } catch {
      continue;
    }
    appended.push(journal.append(plainRecord(command)));
  }
  return appended;
}

/**
 * Runs a test that kills nodes on a cluster of its own, stopped in `finally` whatever happens, so
 * a failure half-way (a node left dead) cannot take the quorum from the tests after it.
 */
async function onOwnCluster(run: (own: NatsCluster) => Promise<void>): Promise<void> {
  const own = await startNatsCluster();
  try {
    await run(own);
  } finally {
    for (const link of links.splice(0)) await link.close().catch(() => undefined);
    await own.stop();
  }
}

describe('jetstream journal: the contract', () => {
  test('appends resolve with gapless numbers in call order, and recovery rebuilds the same state', async () => {
    const stream = newStream();
    const { journal, core } = await openJournal(stream);
    const appended = appendAll(journal, core, openingCommands());
    appended.push(...appendAll(journal, core, applicableCommands(core, 7, 400)));
    const order: bigint[] = [];
    await Promise.all(appended.map((p) => p.then(({ seq }) => order.push(seq))));
    assert.deepEqual(
      order,
      appended.map((_, i) => BigInt(i + 1)),
      'acknowledged in sequence order',
    );
    assert.equal(journal.inFlight, 0);
    const back = await recoverCore(stream);
    assert.equal(back.recovery.position.seq, BigInt(appended.length));
    assert.deepEqual(back.recovery.position.hash, journal.position.hash);
    assert.equal(back.core.stateHash(), core.stateHash());
    await journal.close();
  });

  test('a restarted journal continues the chain; a snapshot in the object store shortens recovery', async () => {
    const stream = newStream();
    const first = await openJournal(stream);
    await Promise.all(appendAll(first.journal, first.core, openingCommands()));
    await Promise.all(appendAll(first.journal, first.core, applicableCommands(first.core, 11, 150)));
    await first.journal.close();

    const second = await openJournal(stream, { snapshotIntervalRecords: 50 });
    assert.equal(second.core.stateHash(), first.core.stateHash());
    const before = second.journal.lastSeq;
    await Promise.all(appendAll(second.journal, second.core, applicableCommands(second.core, 12, 100)));
    assert.equal(second.journal.snapshotDue(0), true);
    const snap = await second.journal.writeSnapshot(second.core.snapshot(), 0);
    assert.equal(snap.seq, second.journal.lastSeq);
    const tail = appendAll(second.journal, second.core, applicableCommands(second.core, 13, 40));
    await Promise.all(tail);
    await second.journal.close();
    assert.ok(second.journal.lastSeq > before);

    const fromSnapshot = await recoverCore(stream);
    assert.equal(fromSnapshot.recovery.snapshot?.seq, snap.seq);
    assert.equal(fromSnapshot.recovery.replayed, tail.length, 'only the records after the snapshot replay');
    assert.equal(fromSnapshot.core.stateHash(), second.core.stateHash());
    const full = await recoverCore(stream, { ignoreSnapshots: true });
    assert.equal(
      full.core.stateHash(),
      second.core.stateHash(),
      'the snapshot equals the replay it stands for',
    );
  });
  test('records appended together share a message; a snapshot taken mid-message recovers the records after it', async () => {
    const stream = newStream();
    const { journal, core } = await openJournal(stream);
    await Promise.all(appendAll(journal, core, openingCommands()));
    const history = applicableCommands(core, 21, 60);
    // All appended in one turn: one message. The snapshot names a record in its middle.
    const head = appendAll(journal, core, history.slice(0, 20));
    const snapshotText = core.snapshot();
    const snap = journal.writeSnapshot(snapshotText, 0);
    const tail = appendAll(journal, core, history.slice(20));
    await Promise.all([...head, ...tail, snap]);
    const info = await streamMessages(stream);
    assert.ok(info < journal.lastSeq, `${info} messages hold ${journal.lastSeq} records`);
    await journal.close();

    const back = await recoverCore(stream);
    assert.equal(back.recovery.snapshot?.seq, (await snap).seq);
    assert.equal(back.recovery.replayed, tail.length, 'the records after the snapshot in its message replay');
    assert.equal(back.core.stateHash(), core.stateHash());
    assert.deepEqual(back.recovery.position.hash, journal.position.hash);
  });

  test('a snapshot begun with nothing in flight names its own message, whatever is appended while it is made', async () => {
    const stream = newStream();
    const { journal, core } = await openJournal(stream);
    await Promise.all(appendAll(journal, core, openingCommands()));
    const history = applicableCommands(core, 31, 40);
    await Promise.all(appendAll(journal, core, history.slice(0, 10)));
    assert.equal(journal.inFlight, 0, 'every record acknowledged before the snapshot starts');
    const text = core.snapshot();
    let produce: () => void = () => {};
    const produced = new Promise<void>((resolve) => (produce = resolve));
    const snap = journal.writeSnapshotFrom(async (at) => {
      await produced;
      return encodeSnapshotFile(KEY, at, text);
    }, 0);
    // While the file is being made, later records land in two later messages.
    const tail = [
      ...(await Promise.all(appendAll(journal, core, history.slice(10, 25)))),
      ...(await Promise.all(appendAll(journal, core, history.slice(25)))),
    ];
    produce();
    await snap;
    await journal.close();

    const back = await recoverCore(stream);
    assert.equal(back.recovery.snapshot?.seq, (await snap).seq);
    assert.equal(back.recovery.replayed, tail.length, 'every record after the snapshot replays');
    assert.equal(back.core.stateHash(), core.stateHash());
  });

  test('a follower reads records as the primary appends them, checked, in order, until told to stop', async () => {
    const stream = newStream();
    const { journal, core } = await openJournal(stream);
    await Promise.all(appendAll(journal, core, openingCommands()));
    const follower = new VenueCore(TEST_CORE_CONFIG);
    const seen: bigint[] = [];
    const stop = new AbortController();
    let caughtUp: () => void = () => {};
    let target = 0n;
    const reached = (seq: bigint) => {
      if (seq >= target) caughtUp();
    };
    const following = readJournalStream({
      link: await link(stream),
      sealingKey: KEY,
      after: { seq: 0n, hash: Buffer.alloc(32) },
      signal: stop.signal,
      onCommand: (command, seq) => {
        follower.apply(command);
        seen.push(seq);
        reached(seq);
      },
    });
    const live = appendAll(journal, core, applicableCommands(core, 51, 120));
    await Promise.all(live);
    target = journal.lastSeq;
    await new Promise<void>((resolve) => {
      caughtUp = resolve;
      reached(seen.at(-1) ?? 0n);
    });
    stop.abort();
    const ended = await following;
    assert.equal(ended.position.seq, journal.lastSeq);
    assert.deepEqual(
      seen,
      seen.map((_, i) => BigInt(i + 1)),
    );
    assert.equal(follower.stateHash(), core.stateHash(), 'the follower holds the primary’s state');
    await journal.close();
  });

  test('a read to an end that never comes stops after its stall time where it was, and a fresh read goes on from there', async () => {
    const stream = newStream();
    const { journal, core } = await openJournal(stream);
    await Promise.all(appendAll(journal, core, openingCommands()));
    await Promise.all(appendAll(journal, core, applicableCommands(core, 23, 60)));
    const reader = await link(stream);
    const copy = new VenueCore(TEST_CORE_CONFIG);
    const end = BigInt((await reader.manager.streams.info(stream)).state.last_seq);
    const stalled = await readJournalStream({
      link: reader,
      sealingKey: KEY,
      after: { seq: 0n, hash: Buffer.alloc(32) },
      // Two messages beyond the stream's end: nothing will deliver them.
      until: end + 2n,
      stallMs: 300,
      onCommand: (command) => {
        copy.apply(command);
      },
    }).catch((error: unknown) => error);
    assert.ok(stalled instanceof StreamStalledError, String(stalled));
    assert.equal(stalled.position.seq, journal.lastSeq, 'it stopped after the last record there is');
    assert.equal(copy.stateHash(), core.stateHash(), 'every record up to there was handed on');

    await Promise.all(appendAll(journal, core, applicableCommands(core, 29, 30)));
    const rest = await readJournalStream({
      link: reader,
      sealingKey: KEY,
      after: stalled.position,
      until: BigInt((await reader.manager.streams.info(stream)).state.last_seq),
      onCommand: (command) => {
        copy.apply(command);
      },
    });
    assert.equal(rest.position.seq, journal.lastSeq);
    assert.equal(copy.stateHash(), core.stateHash(), 'the fresh read went on without a gap or a repeat');
    await journal.close();
  });
});

describe('jetstream journal: which broker answers pass', () => {
  test('timeouts and no responders are tried again; refusals and a missing stream are answers', async () => {
    const stream = newStream();
    const reader = await link(stream);
    const nobody = `${stream}.nobody-listens`;
    // A subject with a listener that never answers: the request times out.
    const silent = reader.connection.subscribe(`${stream}.silent`);
    const timeout = await reader.connection
      .request(`${stream}.silent`, new Uint8Array(0), { timeout: 100 })
      .catch((error: unknown) => error);
    silent.unsubscribe();
    assert.ok(isPassingBrokerError(timeout), String(timeout));
    // A JetStream publish to a subject no stream takes: no responders.
    const noResponders = await reader.client
      .publish(nobody, new Uint8Array(1))
      .catch((error: unknown) => error);
    assert.ok(isPassingBrokerError(noResponders), String(noResponders));
    // The stream's own refusal of a publish (fencing) and a stream that does not exist are final.
    const refused = await reader.client
      .publish(reader.subject, new Uint8Array(1), { expect: { lastSequence: 99 } })
      .catch((error: unknown) => error);
    assert.ok(refused instanceof Error && !isPassingBrokerError(refused), String(refused));
    const missing = await reader.manager.streams.info(`${stream}-missing`).catch((error: unknown) => error);
    assert.ok(missing instanceof Error && !isPassingBrokerError(missing), String(missing));
  });
});

describe('jetstream journal: a venue booted on it', () => {
  test('boots holding the lease, snapshots into the broker, and a restart rebuilds the venue it left', async () => {
    const stream = newStream();
    const boot = (holder: string) =>
      bootEngine({
        config: TEST_CORE_CONFIG,
        clock: new ManualClock(),
        sessionId: TEST_SESSION,
        markets: [testListing(JOURNAL_TEST_MARKET)],
        state: {
          directory: '/nonexistent-the-journal-is-in-the-broker',
          sealingKey: KEY,
          snapshotIntervalRecords: 20,
          jetstream: {
            settings: { servers: cluster.servers, stream, replicas: 3 },
            holder,
            lease: { ttlMs: 3000, renewEveryMs: 1000 },
          },
        },
        companions: [new NoteOpenings(), new MatchFacts()],
      });
    const { engine } = await boot('venue-a');
    opened.push(engine);
    await assert.rejects(
      boot('venue-b'),
      LeaseHeldError,
      'a second primary does not start while the lease is held',
    );
    for (const command of openingCommands()) {
      if (command.type === 'roots' || command.type === 'oracle_price') {
        const { slot: _slot, ...unstamped } = command;
        engine.record(unstamped as UnstampedCommand);
      }
    }
    for (let i = 1; i <= 60; i++) {
      const order = orderBody({
        id: 90_000 + i,
        side: i % 2 === 0 ? 'bid' : 'ask',
        price: 1000n,
        amount: 1n + BigInt(i % 5),
        expiry: 4000n,
      });
      const { slot: _slot, ...unstamped } = placeCommand(order, 0n, `acct-${i % 3}`);
      await engine.submit(unstamped as UnstampedCommand);
    }
    await engine.settled();
    const leftAt = engine.journal?.lastSeq ?? 0n;
    await engine.close();

    const restarted = await boot('venue-b');
    opened.push(restarted.engine);
    await restarted.engine.settled();
    assert.equal(restarted.engine.journal?.failure, null);
    assert.ok(
      (restarted.engine.journal?.lastSeq ?? 0n) > leftAt,
      'the new boot continues after the records it found',
    );
    const reader = await link(stream);
    assert.ok((await reader.snapshots.list()).length >= 1, 'snapshots went to the object store');
    // The restarted venue is exactly a replay of the whole stream: nothing acknowledged was lost.
    const back = await recoverCore(stream, { ignoreSnapshots: true });
    assert.equal(back.recovery.position.seq, restarted.engine.journal?.lastSeq);
    assert.equal(back.core.stateHash(), restarted.engine.core.stateHash());
    await restarted.engine.close();
  });
});

describe('jetstream journal: broker faults and fencing', () => {
  test('one node of three lost during appends: every append is still acknowledged', () =>
    onOwnCluster(async (own) => {
      const stream = newStream();
      const stalls: (VenueError | null)[] = [];
      const { journal, core } = await openJournal(
        stream,
        // The election (4 to 9 s, more under load) is ridden out, not reported; the threshold is
        // generous so the test does not depend on how fast the brokers elect.
        { stallAfterMs: 60_000, onStall: (stalled) => stalls.push(stalled) },
        own,
      );
      await Promise.all(appendAll(journal, core, openingCommands()));
      const history = applicableCommands(core, 21, 300);
      // The stream's leader: its loss makes the others elect a new one while appends are in the air.
      const leader = (await journal.link.manager.streams.info(stream)).cluster?.leader;
      const victim = Math.max(
        0,
        own.nodes.findIndex((node) => node.name === leader),
      );
      const early = appendAll(journal, core, history.slice(0, 150));
      try {
        await own.kill(victim);
        const late = appendAll(journal, core, history.slice(150));
        await Promise.all([...early, ...late]);
        assert.equal(journal.failure, null);
        assert.deepEqual(stalls, [], 'a leader election with a quorum left is not a stall');
        const elected = (await journal.link.manager.streams.info(stream)).cluster?.leader;
        assert.notEqual(elected, leader, 'the appends rode out the election of a new leader');
        const back = await recoverCore(stream, {}, own);
        assert.equal(back.core.stateHash(), core.stateHash());
        await journal.close();
      } finally {
        await own.restartKilled();
      }
    }));

  test('two nodes lost: appends stall and intake gets 503 JOURNAL_STALLED; a node back, they all land', () =>
    onOwnCluster(async (own) => {
      const stream = newStream();
      const stalls: (VenueError | null)[] = [];
      const { journal, core } = await openJournal(
        stream,
        { onStall: (stalled) => stalls.push(stalled) },
        own,
      );
      const acknowledged = appendAll(journal, core, openingCommands());
      await Promise.all(acknowledged);
      const history = applicableCommands(core, 31, 60);
      try {
        await own.kill(1);
        await own.kill(2);
        let settled = 0;
        const waiting = appendAll(journal, core, history).map((p) =>
          p.then((r) => {
            settled++;
            return r;
          }),
        );
        await new Promise<void>((resolve) => {
          const check = setInterval(() => {
            if (journal.stalled !== null) {
              clearInterval(check);
              resolve();
            }
          }, 20);
        });
        const stalled = journal.stalled as VenueError;
        assert.equal(stalled.errorName, 'JOURNAL_STALLED');
        assert.equal(stalled.http, 503);
        assert.equal(journal.hasRoom, false, 'the venue’s own commands wait in the engine');
        // Order intake refuses with the stall's code before applying anything.
        const intake = new VenueEngine(new VenueCore(TEST_CORE_CONFIG), new ManualClock(), journal);
        const { slot: _slot, ...order } = placeCommand(orderBody({ id: 777, expiry: 4000n }), 0n);
        await assert.rejects(
          intake.submit(order as UnstampedCommand),
          (error: unknown) =>
            isVenueError(error) && error.errorName === 'JOURNAL_STALLED' && error.http === 503,
        );
        assert.equal(journal.failure, null, 'a stall is not a failure');
        assert.equal(settled, 0, 'nothing is acknowledged without a quorum');

        await own.restart(1);
        const landed = await Promise.all(waiting);
        assert.equal(landed.at(-1)?.seq, journal.lastSeq);
        assert.equal(journal.stalled, null);
        assert.equal(stalls.at(-1), null, 'the venue hears that the journal resumed');
        const back = await recoverCore(stream, {}, own);
        assert.equal(back.recovery.position.seq, journal.lastSeq, 'nothing acknowledged is lost');
        assert.equal(back.core.stateHash(), core.stateHash());
        await journal.close();
      } finally {
        await own.restartKilled();
      }
    }));

  test('a deposed primary cannot append: its next publish fails with JOURNAL_FENCED', async () => {
    const stream = newStream();
    const old = await openJournal(stream);
    await Promise.all(appendAll(old.journal, old.core, openingCommands()));
    // The new primary reads the stream to its end and appends first.
    const next = await openJournal(stream);
    assert.equal(next.core.stateHash(), old.core.stateHash());
    await Promise.all(appendAll(next.journal, next.core, applicableCommands(next.core, 41, 5)));
    const refused = await Promise.allSettled(
      appendAll(old.journal, old.core, applicableCommands(old.core, 42, 5)),
    );
    for (const outcome of refused) {
      assert.equal(outcome.status, 'rejected');
      assert.ok(isVenueError(outcome.reason) && outcome.reason.errorName === 'JOURNAL_FENCED');
    }
    assert.equal(old.journal.failure?.errorName, 'JOURNAL_FENCED');
    await assert.rejects(
      old.journal.append(plainRecord(openingCommands()[0] as Command)),
      /no longer the primary/,
    );
    const back = await recoverCore(stream);
    assert.equal(
      back.core.stateHash(),
      next.core.stateHash(),
      'the stream holds only the new primary’s records',
    );
    await old.journal.close();
    await next.journal.close();
  });

  test('the lease: held by one instance; refused to another until it lapses; lost by a partitioned holder', async () => {
    const stream = newStream();
    // Each renewal may take up to renewEveryMs: generous enough for a loaded machine's replicated writes.
    const timings = { ttlMs: 2000, renewEveryMs: 500 };
    const primaryLink = await openJetStreamLink({ servers: cluster.servers, stream, replicas: 3 });
    const lost: string[] = [];
    const held = await JetStreamLease.acquire({
      link: primaryLink,
      holder: 'venue-a',
      timings,
      onLost: (r) => lost.push(r),
    });
    const standby = await link(stream);
    await assert.rejects(
      JetStreamLease.acquire({ link: standby, holder: 'venue-b', timings, onLost: () => {} }),
      (error: unknown) => error instanceof LeaseHeldError && error.current?.holder === 'venue-a',
    );
    // Renewals keep it alive past its time to live.
    const firstRevision = held.revision;
    await new Promise((resolve) => setTimeout(resolve, timings.ttlMs * 1.5));
    assert.ok(held.revision > firstRevision);
    assert.equal((await JetStreamLease.holder(standby, timings))?.holder, 'venue-a');
    // The holder is cut off from the brokers: its lease lapses, it hears so, and the standby takes it.
    await primaryLink.close();
    let taken: JetStreamLease | null = null;
    while (taken === null) {
      taken = await JetStreamLease.acquire({
        link: standby,
        holder: 'venue-b',
        timings,
        onLost: () => {},
      }).catch(() => null);
      if (taken === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, timings.renewEveryMs * 2));
    assert.equal(held.lost, true);
    assert.equal(lost.length, 1);
    await taken.release();
    assert.equal(await JetStreamLease.holder(standby, timings), null, 'a released lease is free at once');
  });
});

describe('jetstream journal: leak scan', () => {
  test('the brokers store no order value in clear', async () => {
    const stream = newStream();
    const { journal, core } = await openJournal(stream);
    await Promise.all(appendAll(journal, core, openingCommands()));
    const marked = orderBody({
      id: 424_242_424,
      amount: 987_654_321_987n,
      price: 1000n,
      nonce: 5_555_555_555n,
    });
    await Promise.all(appendAll(journal, core, [placeCommand(marked, core.slot, 'acct-marked')]));
    await journal.writeSnapshot(core.snapshot(), 0);
    await journal.close();
    const needles = [
      '987654321987',
      marked.order_id,
      marked.note_commitment,
      marked.owner_commitment,
      'acct-marked',
    ];
    let scanned = 0;
    for (const node of cluster.nodes) {
      for (const file of await filesUnder(node.storeDir)) {
        const bytes = await readFile(file);
        scanned += bytes.length;
        for (const needle of needles) {
          assert.equal(
            bytes.indexOf(Buffer.from(needle, 'latin1')),
            -1,
            `${file} holds a clear value of the marked order`,
          );
        }
      }
    }
    assert.ok(scanned > 0, 'the brokers’ store directories hold the records');
  });
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info?.isDirectory()) out.push(...(await filesUnder(path)));
    else if (info?.isFile()) out.push(path);
  }
  return out;
}
