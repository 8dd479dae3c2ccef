/**
 * The hot standby's pieces on a real three-node JetStream cluster: a follower keeps the primary's
 * state as records arrive and checks the state hash the primary announces (a wrong one stops it,
 * and it then refuses to take over); a standby takes the lease only once it is free, reads to the
 * end, and a venue booted on what it holds continues the journal, while the deposed writer's next
 * append is fenced.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Command, VenueCore } from '@venue/core';
import { isVenueError } from '@venue/protocol';
import {
  applicableCommands,
  ManualClock,
  type NatsCluster,
  openingCommands,
  startNatsCluster,
  TEST_CORE_CONFIG,
} from '@venue/testing';
import {
  JetStreamJournal,
  JetStreamLease,
  type JetStreamLink,
  JournalRecoveryError,
  openJetStreamLink,
  plainRecord,
  recoverFromJetStream,
} from '../src/journal/index.ts';
import { announceOnMove, StateDivergedError, StreamFollower, standBy } from '../src/standby/index.ts';
import { bootEngine } from '../src/venue/engine-boot.ts';

const KEY = randomBytes(32);
const COMPANIONS = ['note-openings', 'match-facts', 'landed-batches'];
// Each renewal may take up to renewEveryMs: generous enough for a loaded machine's replicated writes.
const TIMINGS = { ttlMs: 2000, renewEveryMs: 500 };
let cluster: NatsCluster;
const links: JetStreamLink[] = [];

before(async () => {
  cluster = await startNatsCluster();
});

after(async () => {
  for (const link of links) await link.close().catch(() => undefined);
  await cluster.stop();
});

async function link(stream: string): Promise<JetStreamLink> {
  const opened = await openJetStreamLink({ servers: cluster.servers, stream, replicas: 3 });
  links.push(opened);
  return opened;
}

/** A writer: a core and a journal at the stream's end; `write` applies and appends what applies. */
async function writer(stream: string) {
  const core = new VenueCore(TEST_CORE_CONFIG);
  const own = await link(stream);
  const found = await recoverFromJetStream({
    link: own,
    sealingKey: KEY,
    onCommand: (command) => {
      core.apply(command);
    },
  });
  const journal = new JetStreamJournal({ link: own, sealingKey: KEY, position: found.position });
  const write = async (commands: Iterable<Command>) => {
    const appended: Promise<{ seq: bigint }>[] = [];
    for (const command of commands) {
      try {
        core.apply(command);
      } catch {
        continue; // refused by the core: not journaled
      }
      appended.push(journal.append(plainRecord(command)));
    }
    await Promise.all(appended);
  };
  return { core, journal, write };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('hot standby', () => {
  test('a follower keeps the primary’s state live and checks announced hashes; a wrong one stops it', async () => {
    const primary = await writer('standby-follow');
    await primary.write(openingCommands());
    const follower = await StreamFollower.open(
      {
        link: await link('standby-follow'),
        sealingKey: KEY,
        config: TEST_CORE_CONFIG,
        companionNames: COMPANIONS,
      },
      true,
    );
    await primary.write(applicableCommands(primary.core, 7, 200));
    const seq = primary.journal.lastSeq;
    follower.announce({ seq, stateHash: primary.core.stateHash() });
    await until(() => follower.position.seq === seq);
    assert.equal(
      follower.core.stateHash(),
      primary.core.stateHash(),
      'the follower holds the primary’s state',
    );
    assert.equal(follower.verified?.seq, seq, 'the announced hash was checked and matched');

    follower.announce({ seq: seq + 1n, stateHash: 'ff'.repeat(32) });
    await primary.write([{ type: 'tick', slot: primary.core.slot + 1n }]);
    await until(() => follower.failure !== null);
    assert.ok(follower.failure instanceof StateDivergedError, String(follower.failure));
    await assert.rejects(follower.catchUp(), StateDivergedError, 'a diverged standby refuses to take over');
    await primary.journal.close();
  });

  test('a catch-up that finds its next records purged stops with a recovery error naming them, holding what it read', async () => {
    const stream = 'standby-purged';
    const primary = await writer(stream);
    await primary.write(openingCommands());
    const own = await link(stream);
    const follower = await StreamFollower.open(
      { link: own, sealingKey: KEY, config: TEST_CORE_CONFIG, companionNames: COMPANIONS, stallMs: 250 },
      true,
    );
    await until(() => follower.position.seq === primary.journal.lastSeq);
    const read = { seq: follower.position.seq, hash: follower.core.stateHash() };
    await follower.stop();
    await primary.write(applicableCommands(primary.core, 13, 40));
    // Everything goes, the records the follower has not read among them.
    await own.manager.streams.purge(stream);
    const caught = await follower.catchUp().catch((error: unknown) => error);
    assert.ok(caught instanceof JournalRecoveryError, String(caught));
    assert.match(caught.message, new RegExp(`records after record ${read.seq} were purged`));
    assert.equal(follower.position.seq, read.seq);
    assert.equal(follower.core.stateHash(), read.hash, 'nothing was applied past what was read');
    await primary.journal.close();
  });

  test('a standby waits for the lease, takes over at the stream’s end, and fences the old writer', async () => {
    const stream = 'standby-takeover';
    const old = await writer(stream);
    const oldLink = links.at(-1) as JetStreamLink;
    const lease = await JetStreamLease.acquire({
      link: oldLink,
      holder: 'old',
      timings: TIMINGS,
      onLost: () => {},
    });
    await old.write(openingCommands());
    const standbyLink = await link(stream);
    const lost: string[] = [];
    const taking = standBy({
      link: standbyLink,
      sealingKey: KEY,
      config: TEST_CORE_CONFIG,
      companionNames: COMPANIONS,
      holder: 'standby',
      timings: TIMINGS,
      pollMs: 50,
      onLeaseLost: (reason) => lost.push(reason),
    });
    let tookOver = false;
    void taking.then(() => (tookOver = true));
    // The old primary keeps writing while it holds the lease: the standby must not move.
    await old.write(applicableCommands(old.core, 11, 100));
    await new Promise((resolve) => setTimeout(resolve, TIMINGS.ttlMs * 1.5));
    assert.equal(tookOver, false, 'no takeover while the primary renews its lease');
    // The primary stops renewing (as if it died) but is still able to write.
    await lease.release();
    const takeover = await taking;
    assert.equal(takeover.position.seq, old.journal.lastSeq, 'the standby read to the stream’s end');
    assert.equal(takeover.follower.core.stateHash(), old.core.stateHash());

    const { engine } = await bootEngine({
      config: TEST_CORE_CONFIG,
      clock: new ManualClock(),
      sessionId: 'cd'.repeat(32),
      markets: [],
      state: {
        directory: '/nonexistent-accounts-dir',
        sealingKey: KEY,
        stream: { link: standbyLink, follower: takeover.follower, lease: takeover.lease },
      },
    });
    assert.equal(engine.journal?.lastSeq, takeover.position.seq + 1n, 'the new boot is the next record');
    // The deposed writer's next append is refused: the stream moved on without it.
    await assert.rejects(
      old.write([{ type: 'tick', slot: old.core.slot + 1n }]),
      (error: unknown) => isVenueError(error) && error.errorName === 'JOURNAL_FENCED',
    );
    assert.deepEqual(lost, [], 'the new primary keeps its lease');
    await engine.close();
  });

  test('the primary hashes its state only when the journal moved; the standby still checks it at takeover', async () => {
    const stream = 'standby-announce';
    const primary = await writer(stream);
    let hashed = 0;
    const announce = announceOnMove(
      () => primary.journal.lastSeq,
      () => {
        hashed += 1;
        return primary.core.stateHash();
      },
    );
    const lease = await JetStreamLease.acquire({
      link: links.at(-1) as JetStreamLink,
      holder: 'primary',
      timings: TIMINGS,
      onLost: () => {},
      announce: () => {
        const state = announce();
        return { seq: state.seq.toString(), stateHash: state.stateHash };
      },
    });
    const taking = standBy({
      link: await link(stream),
      sealingKey: KEY,
      config: TEST_CORE_CONFIG,
      companionNames: COMPANIONS,
      holder: 'standby',
      timings: TIMINGS,
      pollMs: 50,
      onLeaseLost: () => {},
    });
    await primary.write(openingCommands());
    await primary.write(applicableCommands(primary.core, 17, 150));
    // Renewals go on; the journal does not move, so the book is hashed no more.
    await new Promise((resolve) => setTimeout(resolve, TIMINGS.renewEveryMs * 2));
    const afterWrites = hashed;
    await new Promise((resolve) => setTimeout(resolve, TIMINGS.renewEveryMs * 4));
    assert.equal(hashed, afterWrites, 'idle renewals reuse the last hash');
    assert.ok(hashed <= 3, `hashed ${hashed} times for three journal positions at most`);
    await lease.release();
    const takeover = await taking;
    assert.equal(takeover.position.seq, primary.journal.lastSeq);
    assert.deepEqual(
      takeover.verified,
      { seq: primary.journal.lastSeq, stateHash: primary.core.stateHash() },
      'the standby checked its state against the announced hash of the last record',
    );
    await takeover.lease.release();
    await primary.journal.close();
  });
});
