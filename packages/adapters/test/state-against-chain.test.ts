// A persistent venue checks its recovered state against the chain before it trades or settles
// (docs/durability.md "State against the chain"). Real parts throughout: the HTTPS server, the
// journal with fsync in a temp directory, the chain simulator and the settlement pipeline.
// A state directory put back from an older copy, or wiped, is refused: new orders get the pause
// over HTTPS and no batch goes out. The state a venue really stopped with is accepted, including a
// stop right after a batch landed but before its outcome was journaled. An operator who accepts the
// loss starts with the override, and from the next settled batch on the state is current again.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { envelopeOf, httpsCall } from '@venue/testing';
import { type Booted, FINALITY, MARKET, StateChainWorld } from './state-chain-venue.ts';

/** TRADING_PAUSED (errors catalogue), as HTTP 503. */
const TRADING_PAUSED = 5001;

async function pauseReasons(venue: Booted): Promise<string[]> {
  const status = await httpsCall(venue.port, venue.certPem, '/system/status');
  return (JSON.parse(status.text) as { pause_reasons: string[] }).pause_reasons;
}

async function assertTrades(world: StateChainWorld, venue: Booted): Promise<void> {
  assert.equal(venue.checkState, 'consistent');
  assert.deepEqual(await pauseReasons(venue), []);
  const placed = await world.placeOverHttps(venue);
  assert.equal(placed.status, 200, placed.text);
}

/** The refusal a client sees, the operator line, and a pipeline that submits nothing. */
async function assertRefused(world: StateChainWorld, venue: Booted, local: bigint): Promise<void> {
  const chainLast = world.chainLast();
  assert.equal(venue.checkState, 'refused');
  assert.deepEqual(await pauseReasons(venue), ['state_behind_chain']);
  const placed = await world.placeOverHttps(venue);
  assert.equal(placed.status, 503);
  const envelope = envelopeOf(placed);
  assert.equal(envelope.code, TRADING_PAUSED);
  assert.match(envelope.message, /paused venue-wide \(state_behind_chain\)/);
  assert.equal(venue.logs.length, 1, venue.logs.join('\n'));
  assert.ok(
    venue.logs[0]?.includes(`market ${MARKET.marketId}: state batch ${local}, chain batch ${chainLast}`),
    venue.logs[0],
  );
  const pendingBefore = venue.server.engine.core.pendingMatches().length;
  await world.advance(venue, 3 + FINALITY);
  assert.equal(world.chainLast(), chainLast, 'no batch was submitted');
  assert.equal(
    venue.server.engine.core.pendingMatches().length,
    pendingBefore,
    'no outcome was recorded on this state',
  );
  assert.equal(venue.landed.last(MARKET.marketId), local, 'the state learned no batch number');
  assert.equal(venue.logs.length, 1, 'one operator line per boot');
}

test('a state directory put back from an older copy is refused: paused over HTTPS, nothing submitted', async () => {
  const world = await StateChainWorld.create();
  try {
    let venue = await world.boot();
    assert.equal(await world.settleOne(venue), 0n);
    // The copy is taken once the second batch landed but before its outcome was journaled: the
    // copy holds its matches as pending, which the venue must not settle from it later.
    await world.cross(venue);
    await world.advance(venue, 2);
    assert.equal(world.chainLast(), 1n, 'the second batch landed');
    assert.ok(venue.server.engine.core.pendingMatches().length > 0);
    const copy = await world.copyState();
    await world.advance(venue, FINALITY + 1);
    assert.equal(venue.landed.last(MARKET.marketId), 1n);
    assert.equal(await world.settleOne(venue), 2n);
    assert.equal(await world.settleOne(venue), 3n);
    await venue.close();

    await world.restoreState(copy);
    await rm(copy, { recursive: true, force: true });
    venue = await world.boot();
    await assertRefused(world, venue, 0n);
    await venue.close();
  } finally {
    await world.dispose();
  }
});

test('a wiped state directory is refused once the chain has settled batches', async () => {
  const world = await StateChainWorld.create();
  try {
    let venue = await world.boot();
    await world.settleOne(venue);
    await world.settleOne(venue);
    await venue.close();
    await world.wipeState();
    venue = await world.boot();
    await assertRefused(world, venue, -1n);
    await venue.close();
  } finally {
    await world.dispose();
  }
});

test('the override accepts an older state: it trades, and the next settled batch makes it current', async () => {
  const world = await StateChainWorld.create();
  try {
    let venue = await world.boot();
    await world.settleOne(venue);
    await world.settleOne(venue);
    await venue.close();
    await world.wipeState();
    venue = await world.boot({ acceptMismatch: true });
    assert.equal(venue.checkState, 'accepted');
    assert.deepEqual(await pauseReasons(venue), []);
    assert.match(venue.logs[0] ?? '', /state batch -1, chain batch 1.*accept_state_mismatch/);
    assert.equal(await world.settleOne(venue), 2n);
    assert.equal(venue.landed.last(MARKET.marketId), 2n);
    await venue.close();
    venue = await world.boot(); // no override now
    await assertTrades(world, venue);
    await venue.close();
  } finally {
    await world.dispose();
  }
});

for (const mode of [
  { name: 'from the journal', snapshotIntervalRecords: 1_000_000 },
  { name: 'from a snapshot', snapshotIntervalRecords: 1 },
]) {
  test(`a plain restart (${mode.name}) knows the chain's batches and trades`, async () => {
    const world = await StateChainWorld.create(mode.snapshotIntervalRecords);
    try {
      let venue = await world.boot();
      await world.settleOne(venue);
      await world.settleOne(venue);
      await venue.close();
      venue = await world.boot();
      assert.equal(venue.landed.last(MARKET.marketId), 1n);
      if (mode.snapshotIntervalRecords === 1) assert.notEqual(venue.server.recovery?.snapshot ?? null, null);
      else assert.equal(venue.server.recovery?.snapshot ?? null, null);
      await assertTrades(world, venue);
      assert.equal(await world.settleOne(venue), 2n);
      await venue.close();
    } finally {
      await world.dispose();
    }
  });
}

test('a stop after a batch landed but before its outcome was journaled boots, settles it, and stays current', async () => {
  const world = await StateChainWorld.create();
  try {
    let venue = await world.boot();
    await world.settleOne(venue);
    await world.cross(venue);
    await world.advance(venue, 2);
    assert.equal(world.chainLast(), 1n, 'the batch landed');
    // The process dies here: the pipeline hears nothing more, and the batch becomes final on chain
    // while nothing records its outcome.
    venue.settlement.stop();
    await world.advance(venue, FINALITY + 1);
    assert.ok(venue.server.engine.core.pendingMatches().length > 0);
    assert.equal(venue.landed.last(MARKET.marketId), 0n);
    await venue.close();

    venue = await world.boot();
    assert.equal(venue.checkState, 'consistent', venue.logs.join('\n'));
    await world.advance(venue, 2);
    assert.equal(venue.server.engine.core.pendingMatches().length, 0, 'the landed batch settled');
    assert.equal(venue.landed.last(MARKET.marketId), 1n, 'and its number was journaled');
    assert.equal(world.chainLast(), 1n, 'without a second batch');
    await venue.close();

    // The next boot needs no pending match to explain batch 1.
    venue = await world.boot();
    await assertTrades(world, venue);
    assert.equal(await world.settleOne(venue), 2n);
    await venue.close();
  } finally {
    await world.dispose();
  }
});

test('two stops inside one finality window: no new batch is sealed while a recovered landing waits, so both boots are consistent', async () => {
  const finality = 8; // longer than the second boot runs
  const world = await StateChainWorld.create(1_000_000, finality);
  try {
    let venue = await world.boot();
    await world.settleOne(venue);
    await world.cross(venue);
    await world.advance(venue, 2);
    assert.equal(world.chainLast(), 1n, 'batch 1 landed, not final');
    await venue.close(); // stops before finality: its outcome is not journaled

    venue = await world.boot();
    assert.equal(venue.checkState, 'consistent', venue.logs.join('\n'));
    // New matches while batch 1 waits for finality: batch 2 must wait for its outcome to be recorded.
    await world.cross(venue);
    await world.advance(venue, 2);
    assert.equal(world.chainLast(), 1n, 'no batch sealed before the recovered landing was recorded');
    await venue.close();

    venue = await world.boot();
    assert.equal(venue.checkState, 'consistent', venue.logs.join('\n'));
    for (let slot = 0; slot < 4 + finality * 2; slot += 1) await world.advance(venue, 1);
    assert.equal(venue.server.engine.core.pendingMatches().length, 0);
    assert.equal(world.chainLast(), 2n);
    assert.equal(venue.landed.last(MARKET.marketId), 2n);
    await venue.close();
  } finally {
    await world.dispose();
  }
});
