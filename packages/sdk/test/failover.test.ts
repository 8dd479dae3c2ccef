/**
 * Issue 22's failover test. A primary venue and a hot standby run as processes on a journal stream
 * of a three-node JetStream cluster, and settle on a chain simulator in a process of its own;
 * traders drive signed places, cancels and modifies through the SDK, whose clients know both
 * endpoints. Every order carries a real VALID_INPUT proof (a settling venue takes no other): the
 * notes are deposited and proved once ahead of the load and reused order after order. Now and then
 * two traders place a crossing pair, whose match then settles through the takeovers. The primary is
 * SIGKILLed at random moments (some right after a burst of sends, while their appends are in the
 * air), the standby takes over, and a new standby starts where the dead one listened. After every
 * takeover: every acknowledged operation is there, every operation whose reply was lost is
 * all-or-nothing, and a body signed for the dead boot is refused. At the end the live primary's
 * state equals a replay of the whole stream, and the chain settled every match that replay knows
 * exactly once: each settled match's note consumed once, the batches' match counts adding up to the
 * settled matches, every other match failed with a reason, and the chain's notes as the test expects.
 */

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { ERRORS, TERMINAL_ORDER_STATES } from '@venue/protocol';
import {
  createFailoverWorld,
  depositAndProve,
  type FailoverChain,
  type FailoverNote,
  type FailoverWorld,
  failoverSettlementSigner,
  failoverTrust,
  freePort,
  loadFailoverWorld,
  type NatsCluster,
  type NotePlan,
  orderBody,
  replayStreamStateHash,
  saveWorld,
  startFailoverChain,
  startNatsCluster,
  TEST_CORE_CONFIG,
  testMarket,
} from '@venue/testing';
import { connectVenue, Trader, TradingKeys, VenueApiError, type VenueClient } from '../src/index.ts';

const CHILD = new URL('../../testing/src/failover-venue-child.ts', import.meta.url).pathname;
const KILLS = 20;
const TRADERS = 3;
const STREAM = 'failover';
// Two seconds: a takeover's boot on a busy 2-core machine may hold its event loop long enough to
// miss renewals of a shorter lease (the bench measures the 1 s lease).
const LEASE = { leaseTtlMs: 2000, leaseRenewMs: 500 };
const MARKET = testMarket('SOL-USDC');
const SLOT_MS = 100;
/** Resting notes per trader: reused by every order that never crosses. */
const RESTING_SIDES = ['bid', 'ask'] as const;
/** A crossing pair every fifth kill (kills 1, 6, 11, 16): each pair's two notes settle once. */
const PAIR_EVERY = 5;
const PAIRS = Math.ceil((KILLS - 1) / PAIR_EVERY);
const PAIR_AMOUNT = 100n;
const PAIR_PRICE = 1000n;
/** Processes proving the notes ahead of the load (about 3 s a proof each on a quiet machine). */
const PROVERS = 2;

type Outcome = 'acked' | 'refused' | 'unknown';

interface OrderLog {
  readonly orderId: string;
  /** The note commitment behind the order. */
  readonly note: string;
  /** One of a crossing pair: it matches, so it is never cancelled or modified. */
  readonly crossing: boolean;
  /** The venue reported it finished (a terminal state): its note is free again. */
  finished: boolean;
  /** The refusal's code and message, for the failure message. */
  why?: string;
  readonly trader: number;
  place: Outcome;
  cancel: Outcome | null;
  modify: { outcome: Outcome; replacedBy: string } | null;
}

interface Instance {
  readonly name: string;
  readonly child: ChildProcess;
  readonly port: number;
  alive: boolean;
  /** When it printed `ready` (it took over, or started as primary); null while a standby. */
  readyAtMs: number | null;
  readonly following: Promise<void>;
  readonly ready: Promise<{ sessionId: string; readyAtMs: number; leaseFreeAtMs: number }>;
  /** What it printed after a graceful stop (SIGTERM): its state hash and how it got there. */
  readonly stopped: Promise<StopReport>;
  readonly exited: Promise<void>;
}

/** failover-venue-child.ts's last line after SIGTERM. */
interface StopReport {
  readonly stateHash: string;
  /** The journal's last record (assigned; every one was acknowledged if journalFailure is null). */
  readonly lastSeq: string | null;
  /** The stream's last record when this instance took over. */
  readonly takeoverSeq: string;
  readonly slot: string;
  /** The chain's slot after the stop, and how long the stop took. */
  readonly clockSlot: string;
  readonly stopMs: number;
  /** The journal's last record and the core's slot when the stop began. */
  readonly atStop: { readonly seq: string | null; readonly slot: string };
  readonly journalFailure: string | null;
  /** The core's snapshot after the stop (the JSON the state hash is the sha256 of). */
  readonly snapshotFile: string;
}

const LIVE = new Set<ChildProcess>();
const TRACE = process.env['FAILOVER_TRACE'];
/** The trace's last lines, kept whether or not FAILOVER_TRACE is set: printed if the test ends early. */
const RECENT: string[] = [];
const RECENT_MAX = 40;
const trace = (line: string) => {
  const stamped = `${new Date().toISOString()} ${line}`;
  RECENT.push(stamped);
  if (RECENT.length > RECENT_MAX) RECENT.shift();
  if (TRACE !== undefined) appendFileSync(TRACE, `${stamped}\n`);
};
let cluster: NatsCluster;
let chain: FailoverChain | undefined;
let dir: string;

function startInstance(role: 'primary' | 'standby', port: number, name: string): Instance {
  const config = {
    dir,
    role,
    servers: cluster.servers,
    stream: STREAM,
    port,
    traders: TRADERS,
    name,
    ...LEASE,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  LIVE.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      LIVE.delete(child);
      trace(`${name} exited ${code ?? signal}: ${stderr.slice(-600)}`);
      resolve();
    }),
  );
  const heard = new Map<string, (value: never) => void>();
  const waitFor = <T>(key: string) =>
    new Promise<T>((resolve, reject) => {
      heard.set(key, resolve as (value: never) => void);
      void exited.then(() => reject(new Error(`${name} exited before "${key}": ${stderr.slice(-2000)}`)));
    });
  const following = waitFor<void>('following');
  const ready = waitFor<{ sessionId: string; readyAtMs: number; leaseFreeAtMs: number }>('ready');
  let reportStop: (report: StopReport) => void = () => {};
  const stopped = new Promise<StopReport>((resolve, reject) => {
    reportStop = resolve;
    void exited.then(() =>
      reject(new Error(`${name} exited before its stop report: ${stderr.slice(-2000)}`)),
    );
  });
  for (const promise of [following, ready, stopped]) promise.catch(() => undefined);
  const instance: Instance = {
    name,
    child,
    port,
    alive: true,
    readyAtMs: null,
    following,
    ready,
    stopped,
    exited,
  };
  void exited.then(() => {
    instance.alive = false;
  });
  ready.then(
    (line) => {
      instance.readyAtMs = line.readyAtMs;
    },
    () => undefined,
  );
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    trace(`${name}: ${line.slice(0, 300)}`);
    const message = JSON.parse(line) as Record<string, unknown>;
    for (const [key, value] of Object.entries(message)) heard.get(key)?.(value as never);
    if ('stateHash' in message) reportStop(message as unknown as StopReport);
  });
  return instance;
}

// Below this file's ceiling, which run-tests.mjs passes in TEST_FILE_CEILING_S (900 s; a run takes
// two to four minutes on a loaded 2-core machine and up to nine when the host runs slow), so that a
// hang is reported here, with the step it stopped at, and `after` kills the instances before the
// runner kills the file.
const TEST_TIMEOUT_MS = (Number(process.env['TEST_FILE_CEILING_S'] ?? 900) - 60) * 1000;
/** How far the test got, printed if it ends before the end (a failure or its timeout). */
let reached = 'setup';

describe('failover to a hot standby (SIGKILL at random moments)', { timeout: TEST_TIMEOUT_MS }, () => {
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'venue-failover-'));
    cluster = await startNatsCluster();
  });
  after(async () => {
    if (reached !== 'done') {
      process.stdout.write(`# stopped at ${reached}\n# the trace's last lines:\n`);
      for (const line of RECENT) process.stdout.write(`#   ${line}\n`);
    }
    for (const child of LIVE) child.kill('SIGKILL');
    await chain?.stop();
    await cluster?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged operation, half-applies nothing, refuses old sessions, equals a replay, settles each match once', async () => {
    const startedAt = Date.now();
    const created = await createFailoverWorld(dir);
    chain = await startFailoverChain({
      settlementSigner: await failoverSettlementSigner(created),
      slotMs: SLOT_MS,
      finalityDepth: 4,
      shards: TEST_CORE_CONFIG.treeCount,
      markets: [MARKET, testMarket('ETH-USDC')],
    });
    await saveWorld(dir, { ...created, chain: { url: chain.url, pollMs: 50, slotMs: SLOT_MS } });
    // Three endpoints: the primary and two standbys, so a fresh standby has a whole cycle to start.
    const ports = [await freePort(), await freePort(), await freePort()];
    // The traders' keys come first: each proof binds its note to one trading key.
    const keys = Array.from({ length: TRADERS }, () => TradingKeys.generate());
    const plans: NotePlan[] = [];
    for (let trader = 0; trader < TRADERS; trader += 1)
      for (const side of RESTING_SIDES) plans.push({ trader, side, value: 1000n, treeId: 0 });
    for (let pair = 0; pair < PAIRS; pair += 1) {
      plans.push({ trader: pair % TRADERS, side: 'bid', value: PAIR_AMOUNT, treeId: 1 });
      plans.push({ trader: (pair + 1) % TRADERS, side: 'ask', value: PAIR_AMOUNT, treeId: 1 });
    }
    // The notes are deposited and proved before any venue instance starts: provers beside a booting
    // primary or a standby renewing its lease starve them on a 2-core machine (seen: a lease lost at
    // load 18), and provers at the lowest priority beside the rest of the suite took three minutes.
    const provedAt = Date.now();
    const notes = await depositAndProve(
      chain.rpc,
      MARKET,
      plans,
      keys.map((k) => k.publicKey),
      PROVERS,
    );
    process.stdout.write(`# proved ${notes.length} notes in ${Date.now() - provedAt} ms\n`);
    reached = 'the first boots';
    const pool = new Set<Instance>([startInstance('primary', ports[0] as number, 'v0')]);
    let named = 1;
    /** Starts standbys on the free endpoints until three instances run. */
    const refill = () => {
      for (const port of ports) {
        if ([...pool].some((i) => i.alive && i.port === port)) continue;
        pool.add(startInstance('standby', port, `v${named++}`));
      }
    };
    const standbys = () => [...pool].filter((i) => i.alive && i.readyAtMs === null);
    /** The instance that took over last and still runs: the primary. */
    const primaryNow = () =>
      [...pool]
        .filter((i) => i.alive && i.readyAtMs !== null)
        .sort((a, b) => (b.readyAtMs as number) - (a.readyAtMs as number))[0];
    await ([...pool][0] as Instance).ready;
    refill();
    await Promise.all(standbys().map((standby) => standby.following));
    const resting = notes.filter((note) => note.input.tree_id === 0);
    const crossing = notes.filter((note) => note.input.tree_id === 1);
    const world = await loadFailoverWorld(dir);
    const trust = failoverTrust(world);
    const urls = ports.map((port) => `https://127.0.0.1:${port}`);

    const traders: TraderAt[] = [];
    for (const account of world.traders ?? []) {
      const client = await connectVenue({
        url: urls[0] as string,
        failoverUrls: urls.slice(1),
        trust,
        requestTimeoutMs: 4000,
      });
      await client.login({
        apiKey: account.api_key,
        apiSecret: account.api_secret,
        passphrase: account.passphrase,
      });
      const trader = new Trader({
        client,
        keys: keys[traders.length] as TradingKeys,
        viewingPubkey: 'ab'.repeat(32),
      });
      traders.push({ client, trader, notes: resting.filter((note) => note.trader === traders.length) });
    }
    assert.equal(traders.length, TRADERS);

    const orders = new Map<string, OrderLog>();
    let nextId = randomInt(1, 1_000_000_000) * 1000;
    const firstId = nextId;
    /** The run's random choices and who took over, printed if the end state differs from a replay. */
    const choices: string[] = [];
    let acked = 0;
    let unknown = 0;
    let failoversSeen = 0;
    for (const { client } of traders) client.onFailover(() => (failoversSeen += 1));
    const failoverMs: number[] = [];

    for (let kill = 0; kill < KILLS; kill += 1) {
      const at = `kill ${kill + 1} of ${KILLS}`;
      reached = at;
      const primary = primaryNow();
      assert.ok(primary !== undefined, 'a primary runs');
      const oldSession = (await primary.ready).sessionId;
      let stop = false;
      const load = traders.map(async (_, index) => {
        while (!stop) {
          const outcome = await randomOperation(traders, index, orders);
          if (outcome === 'acked') acked += 1;
          if (outcome === 'unknown') unknown += 1;
        }
      });
      if (kill % PAIR_EVERY === 1) {
        // A crossing pair: it matches at the next auction, and its settlement meets the kill.
        const pair = (kill - 1) / PAIR_EVERY;
        await Promise.all(
          [crossing[2 * pair], crossing[2 * pair + 1]].map((note) =>
            placeCrossing(traders, note as FailoverNote, orders),
          ),
        );
      }
      const pauseMs = randomInt(100, 700);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      if (kill % 3 === 0) {
        // A burst of sends and the kill right behind it: appends are in the air (a group commit).
        for (let i = 0; i < 8; i += 1) void randomOperation(traders, i % TRADERS, orders, true);
        await new Promise((resolve) => setImmediate(resolve));
      }
      trace(`kill ${kill}: acked ${acked} unknown ${unknown}`);
      const killedAt = Date.now();
      primary.child.kill('SIGKILL');
      reached = `${at}: the killed primary's exit`;
      await primary.exited;
      // A standby takes over (the lease decides which); a new one starts where the dead one listened.
      refill();
      reached = `${at}: a standby's takeover`;
      const tookOver = await Promise.any(standbys().map((standby) => standby.ready));
      failoverMs.push(tookOver.readyAtMs - killedAt);
      choices.push(
        `kill ${kill + 1}: ${primary.name} killed ${pauseMs} ms into the load${kill % 3 === 0 ? ' behind a burst' : ''}${kill % PAIR_EVERY === 1 ? ' with a crossing pair' : ''} (acked ${acked}, unknown ${unknown}); ${[...pool].find((i) => i.readyAtMs === tookOver.readyAtMs)?.name ?? '?'} took over in ${tookOver.readyAtMs - killedAt} ms`,
      );
      trace(`took over in ${tookOver.readyAtMs - killedAt} ms`);
      stop = true;
      reached = `${at}: the traders' last operations`;
      await Promise.all(load);
      reached = `${at}: settling the traders`;
      await settle(traders);

      trace('load stopped, settled');
      reached = `${at}: the check against the log`;
      await checkAgainstLog(traders, orders);
      trace('checked');
      // spec 2.1: a body signed for the dead boot is refused by the new primary.
      const { client, trader, notes: own } = traders[0] as TraderAt;
      assert.notEqual(client.sessionId, oldSession, 'the client moved to the new boot');
      const stale = staleBody(trader, own[0] as FailoverNote, oldSession, nextId++);
      await assert.rejects(client.place(stale), (error: unknown) => {
        assert.ok(error instanceof VenueApiError);
        assert.equal(error.code, ERRORS.STALE_SESSION.code);
        return true;
      });
      // Three instances again, and at least one standby follows the stream before the next kill.
      refill();
      reached = `${at}: a standby following the stream`;
      await Promise.any(standbys().map((standby) => standby.following));
    }

    assert.ok(acked > 100, `the load acknowledged enough operations to mean something (${acked})`);
    assert.ok(unknown > 0, 'some operations were in flight when a primary died');
    assert.ok(failoversSeen >= KILLS, `every client followed every takeover (${failoversSeen})`);
    // Every match reaches finality (settled or failed) on the last primary before it stops.
    reached = 'the drain of settlement';
    await drainSettlement(traders, orders);
    // Stop the last primary and the standby; the live state equals a replay of the whole stream.
    const last = primaryNow();
    assert.ok(last !== undefined, 'a primary runs at the end');
    for (const standby of standbys()) standby.child.kill('SIGKILL');
    last.child.kill('SIGTERM');
    const live = await last.stopped;
    reached = 'the replay and the chain check';
    const replay = await replayStreamStateHash(
      world as FailoverWorld,
      cluster.servers,
      STREAM,
      live.lastSeq === null ? undefined : BigInt(live.lastSeq),
    );
    trace(
      `stopped ${last.name}: ${JSON.stringify(live)}; replay: ${replay.replayed} records to ${replay.records}, slot ${replay.slot}, state ${replay.stateHash}`,
    );
    if (replay.stateHash !== live.stateHash) {
      process.stdout.write(
        `${await explainMismatch(live, replay, last.name, choices, firstId)
          .then((lines) => lines.map((line) => `# ${line}`).join('\n'))
          .catch((error: unknown) => `# (the mismatch could not be explained: ${String(error)})`)}\n`,
      );
    }
    assert.equal(replay.stateHash, live.stateHash, 'a replay of the whole stream equals the last primary');
    for (const { client, trader } of traders) {
      trader.close();
      await client.close();
    }
    const settled = await checkChainSettledOnce(replay.matches, notes, chain);
    const sorted = [...failoverMs].sort((a, b) => a - b);
    process.stdout.write(
      `# failover ms over ${sorted.length} kills: p50 ${sorted[Math.floor(sorted.length / 2)]} max ${sorted.at(-1)}\n` +
        `# ${replay.matches.length} matches, ${settled} settled on the chain; test ${Math.round((Date.now() - startedAt) / 1000)} s\n`,
    );
    reached = 'done';
  });
});

/**
 * What a failure of "a replay equals the last primary" needs: where each side ended (the primary's
 * journal against the stream), whether a replay up to the primary's last record equals it (then the
 * stream holds records the primary never applied, or a deposed writer's), which parts of the two
 * states differ, and the run's random choices.
 */
async function explainMismatch(
  live: StopReport,
  replay: Awaited<ReturnType<typeof replayStreamStateHash>>,
  name: string,
  choices: readonly string[],
  nextId: number,
): Promise<string[]> {
  const lines = [
    `the last primary ${name}: state ${live.stateHash} slot ${live.slot}, journal's last record ${live.lastSeq}` +
      ` (took over at record ${live.takeoverSeq}; at the stop: record ${live.atStop.seq}, slot ${live.atStop.slot};` +
      ` the stop took ${live.stopMs} ms, the chain is at slot ${live.clockSlot};` +
      ` journal failure ${live.journalFailure ?? 'none'})`,
    `the replay: state ${replay.stateHash} slot ${replay.slot}, ${replay.replayed} records to record ${replay.records}` +
      ` in ${replay.lastMessage} messages`,
    replay.hashAt === null
      ? `the stream holds no record ${live.lastSeq}`
      : `a replay to record ${live.lastSeq} (the primary's last) ${replay.hashAt === live.stateHash ? 'EQUALS' : 'differs from'} the primary: ${replay.hashAt}`,
  ];
  const parts = (text: string) => (JSON.parse(text) as { state: Record<string, unknown> }).state;
  const own = parts(await readFile(live.snapshotFile, 'utf8'));
  const replayed = parts(replay.snapshot);
  for (const field of new Set([...Object.keys(own), ...Object.keys(replayed)])) {
    const a = JSON.stringify(own[field]);
    const b = JSON.stringify(replayed[field]);
    if (a === b) continue;
    const size = (value: unknown) =>
      Array.isArray(value) ? `${value.length} entries` : (JSON.stringify(value) ?? 'absent').slice(0, 200);
    lines.push(`state.${field} differs: primary ${size(own[field])}, replay ${size(replayed[field])}`);
  }
  lines.push(`order ids from ${nextId}; the kills:`, ...choices);
  return lines;
}

interface TraderAt {
  readonly client: VenueClient;
  readonly trader: Trader;
  /** The trader's resting notes: each backs one live order at a time. */
  readonly notes: readonly FailoverNote[];
}

/** Waits until every trader's client answers on the new boot (the load may still be failing over). */
async function settle(traders: readonly { client: VenueClient }[]): Promise<void> {
  for (const { client } of traders) {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await client.time();
        break;
      } catch (error) {
        if (attempt > 50) throw error;
        await client.recover();
      }
    }
  }
}

/** A place on one of the trader's notes, with its real proof, signed for `sessionId`. */
function staleBody(trader: Trader, note: FailoverNote, sessionId: string, id: number) {
  const { trading_key, session_id, arrival_nonce, trading_key_signature, ...draft } = orderBody({
    id,
    side: note.side,
    price: 950n,
    amount: 10n,
    expiry: 10_000_000n,
  });
  void [trading_key, session_id, arrival_nonce, trading_key_signature];
  return trader.keys.signOrder(
    { ...draft, ...note.input, collateral_amount: note.value, symbol: MARKET.symbol },
    sessionId,
  );
}

/**
 * A cancel or modify that failed: after a resend or a failover no refusal proves the first try did
 * nothing, so its fate is read from the venue (all-or-nothing) like a lost reply's.
 */
function outcomeOf(_error: unknown): Outcome {
  return 'unknown';
}

/**
 * Notes a place has picked and whose outcome is not logged yet. The Trader records a place's body
 * only when its turn comes, and a burst's place may wait through a takeover for it: without the
 * reservation the trader's own loop could place, log and then modify another order on the same
 * note meanwhile, and the late body would pass for the modify's replacement (the log is kept by note).
 */
const placing = new Set<string>();

/** The notes of live orders (placed or maybe placed, not finished, not replaced) and of places in flight. */
function busyNotes(orders: Map<string, OrderLog>): Set<string> {
  const busy = new Set<string>(placing);
  for (const log of orders.values()) {
    if (log.place !== 'refused' && !log.finished && log.cancel !== 'acked' && log.modify === null)
      busy.add(log.note);
  }
  return busy;
}

/** Places one order of a crossing pair on its note; its outcome is logged like any place's. */
async function placeCrossing(
  traders: readonly TraderAt[],
  note: FailoverNote,
  orders: Map<string, OrderLog>,
): Promise<void> {
  const { trader } = traders[note.trader] as TraderAt;
  let outcome: Outcome = 'acked';
  let why: string | undefined;
  try {
    await trader.place({
      symbol: MARKET.symbol,
      side: note.side,
      amount: PAIR_AMOUNT,
      price: PAIR_PRICE,
      input: note.input, // the note holds exactly the order's cost
    });
  } catch (error) {
    outcome = 'refused';
    why = error instanceof VenueApiError ? `${error.code} ${error.message}` : String(error);
  }
  trace(
    `crossing ${note.side} by ${note.trader}: ${logPlace(trader, note, outcome, why, true, note.trader, orders)} ${why ?? ''}`,
  );
}

/** Records a place by the order the Trader recorded for `note` (its newest), if it got that far. */
function logPlace(
  trader: Trader,
  note: FailoverNote,
  reported: Outcome,
  why: string | undefined,
  crossing: boolean,
  index: number,
  orders: Map<string, OrderLog>,
): Outcome {
  // The Trader chose the order id and recorded the body before sending (if it got that far). A
  // place it reports refused was checked by it (read back after a lost answer); one it left
  // unsent has an unknown fate.
  const placed = trader.orders
    .all()
    .filter((o) => o.body.note_commitment === note.input.note_commitment && !orders.has(o.order_id))
    .at(-1);
  let outcome = reported;
  if (outcome !== 'acked') outcome = placed?.state === 'unsent' ? 'unknown' : 'refused';
  if (placed !== undefined) {
    orders.set(placed.order_id, {
      orderId: placed.order_id,
      note: note.input.note_commitment,
      crossing,
      finished: false,
      trader: index,
      place: outcome,
      cancel: null,
      modify: null,
      ...(why === undefined ? {} : { why }),
    });
  }
  return outcome;
}

async function randomOperation(
  traders: readonly TraderAt[],
  index: number,
  orders: Map<string, OrderLog>,
  /** Only a place (a burst beside the trader's own loop must not touch the orders it works on). */
  placeOnly = false,
): Promise<Outcome> {
  const { trader, notes } = traders[index] as TraderAt;
  const mine = [...orders.values()].filter(
    (o) =>
      o.trader === index &&
      !o.crossing &&
      !o.finished &&
      o.place === 'acked' &&
      o.cancel === null &&
      o.modify === null,
  );
  const busy = busyNotes(orders);
  const free = notes.filter((note) => !busy.has(note.input.note_commitment));
  const roll = randomInt(0, 10);
  if (free.length > 0 && (placeOnly || mine.length === 0 || roll < 6)) {
    const note = free[randomInt(0, free.length)] as FailoverNote;
    placing.add(note.input.note_commitment);
    const side = note.side;
    const amount = BigInt(randomInt(1, 500));
    // Bids below asks and away from the pairs' price: nothing of this load crosses.
    const price = side === 'bid' ? 950n : 1050n;
    let outcome: Outcome = 'acked';
    let why: string | undefined;
    try {
      await trader.place({
        symbol: MARKET.symbol,
        side,
        amount,
        price,
        input: { ...note.input, collateral_amount: note.value },
      });
    } catch (error) {
      outcome = 'refused';
      why = error instanceof VenueApiError ? `${error.code} ${error.message}` : String(error);
    }
    const logged = logPlace(trader, note, outcome, why, false, index, orders);
    placing.delete(note.input.note_commitment);
    return logged;
  }
  if (placeOnly) return 'refused';
  if (mine.length === 0) {
    // Every note backs an order whose fate is not known yet: wait for the next check.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return 'refused';
  }
  const target = mine[randomInt(0, mine.length)] as OrderLog;
  if (roll < 8) {
    target.cancel = 'unknown';
    try {
      await trader.cancel(target.orderId);
      target.cancel = 'acked';
    } catch (error) {
      target.cancel = outcomeOf(error);
    }
    return target.cancel;
  }
  const before = new Set(trader.orders.all().map((o) => o.order_id));
  const side = trader.orders.get(target.orderId)?.body.side;
  let outcome: Outcome = 'acked';
  try {
    // A reprice that still crosses nothing.
    await trader.modify(target.orderId, { price: side === 'ask' ? 1040n : 960n, newOrderId: true });
  } catch (error) {
    outcome = outcomeOf(error);
  }
  // The replacement rests on the same note under a new id, recorded before the send; no place on
  // that note is in flight (the note is busy), so it is the one body new on the note.
  const replacements = trader.orders
    .all()
    .filter(
      (o) => !before.has(o.order_id) && !orders.has(o.order_id) && o.body.note_commitment === target.note,
    );
  assert.ok(
    replacements.length <= 1,
    `one modify of ${target.orderId} recorded ${replacements.length} new bodies`,
  );
  const replacement = replacements[0];
  if (replacement === undefined) return outcome;
  target.modify = { outcome, replacedBy: replacement.order_id };
  orders.set(replacement.order_id, {
    orderId: replacement.order_id,
    note: target.note,
    crossing: false,
    finished: false,
    trader: index,
    place: outcome,
    cancel: null,
    modify: null,
  });
  return outcome;
}

const TERMINAL = new Set<string>(TERMINAL_ORDER_STATES);

/** Every acknowledged effect is present; every unknown one is all-or-nothing. */
async function checkAgainstLog(
  traders: readonly { client: VenueClient }[],
  orders: Map<string, OrderLog>,
): Promise<void> {
  const stateOf = async (log: { trader: number }, id: string) => {
    const record = (await (traders[log.trader] as { client: VenueClient }).client.reconcile([id])).get(id);
    return record === null || record === undefined ? null : record.state;
  };
  for (const log of orders.values()) {
    const state = await stateOf(log, log.orderId);
    if (log.place === 'acked') assert.notEqual(state, null, `acknowledged order ${log.orderId} was lost`);
    if (log.place === 'refused')
      assert.equal(state, null, `refused order ${log.orderId} exists (${log.why})`);
    if (state === null) {
      if (log.place === 'unknown') orders.delete(log.orderId);
      continue;
    }
    log.place = 'acked';
    if (TERMINAL.has(state)) log.finished = true;
    if (log.cancel === 'acked')
      assert.ok(TERMINAL.has(state), `acknowledged cancel of ${log.orderId}: ${state}`);
    if (log.cancel === 'unknown') log.cancel = TERMINAL.has(state) ? 'acked' : null;
    if (log.cancel === 'refused') log.cancel = null;
    if (log.modify !== null) {
      const replacement = await stateOf(log, log.modify.replacedBy);
      if (log.modify.outcome === 'acked') {
        assert.notEqual(replacement, null, `acknowledged modify of ${log.orderId} lost its replacement`);
        assert.ok(TERMINAL.has(state), `acknowledged modify left ${log.orderId} ${state}`);
      } else if (replacement === null) {
        assert.ok(state === 'resting' || state === 'expired', `half-applied modify: ${log.orderId} ${state}`);
        log.modify = null;
      } else {
        assert.equal(state, 'cancelled', `half-applied modify: replacement exists, original ${state}`);
        log.modify.outcome = 'acked';
      }
    }
  }
}

/** Waits until no acknowledged crossing order awaits its settlement (bounded; not a speed check). */
async function drainSettlement(traders: readonly TraderAt[], orders: Map<string, OrderLog>): Promise<void> {
  const pending = () => [...orders.values()].filter((log) => log.crossing && log.place !== 'refused');
  for (let attempt = 0; ; attempt += 1) {
    let waiting = 0;
    for (const log of pending()) {
      const record = (await (traders[log.trader] as TraderAt).client.reconcile([log.orderId])).get(
        log.orderId,
      );
      if (record?.state === 'pending_settlement' || record?.state === 'partially_filled') waiting += 1;
    }
    if (waiting === 0) return;
    assert.ok(attempt < 1200, `${waiting} crossing orders still pending settlement`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The chain against the journal's matches: every match has an outcome; each settled match's note
 * was consumed on the chain and no note settled twice; the landed batches' match counts add up to
 * the settled matches (so no match landed twice, in one batch or two); a failed match's note was not
 * consumed; the chain consumed no deposited note the venue does not know settled; and the chain's
 * audit agrees with the notes the test deposited. Returns the number of settled matches.
 */
async function checkChainSettledOnce(
  matches: Awaited<ReturnType<typeof replayStreamStateHash>>['matches'],
  notes: readonly FailoverNote[],
  chain: FailoverChain,
): Promise<number> {
  const { rpc } = chain;
  const byCommitment = new Map(notes.map((note) => [note.input.note_commitment, note]));
  const consumed = new Map<string, boolean>();
  for (const note of notes)
    consumed.set(
      note.input.note_commitment,
      (await rpc.request('getConsumed', { note_use_tag: note.noteUseTag })) !== null,
    );
  assert.ok(matches.length >= 2, `the pairs matched (${matches.length} matches journaled)`);
  const settled = matches.filter((match) => match.outcome?.settled === true);
  for (const match of matches) {
    assert.notEqual(match.outcome, null, `match ${match.matchId} has no outcome: lost`);
    const note = byCommitment.get(match.noteCommitment);
    assert.ok(note !== undefined, `match ${match.matchId} is on a note the test made`);
    if (match.outcome?.settled === true)
      assert.equal(
        consumed.get(match.noteCommitment),
        true,
        `settled match ${match.matchId}: note not consumed`,
      );
    else
      assert.equal(consumed.get(match.noteCommitment), false, `failed match ${match.matchId}: note consumed`);
  }
  assert.equal(
    new Set(settled.map((match) => match.noteCommitment)).size,
    settled.length,
    'no note settled twice',
  );
  const settledNotes = new Set(settled.map((match) => match.noteCommitment));
  for (const [commitment, spent] of consumed)
    if (spent)
      assert.ok(
        settledNotes.has(commitment),
        `the chain consumed ${commitment}, a match the venue does not know settled`,
      );
  const market = await rpc.request('getMarket', { market_id: MARKET.marketId });
  let landedMatches = 0;
  let appended = 0;
  for (let seq = 0n; seq < market.next_batch_seq; seq += 1n) {
    const status = await rpc.request('getSettlementStatus', { market_id: MARKET.marketId, batch_seq: seq });
    const record = await rpc.request('getSettlement', { tx_id: status.tx_id });
    assert.equal(record?.state, 'landed', `batch ${seq} landed`);
    landedMatches += record?.match_count ?? 0;
    appended += record?.appended?.length ?? 0;
  }
  assert.equal(landedMatches, settled.length, "the chain's batches settled each settled match once");
  const audit = await rpc.request('audit');
  for (const mint of new Set(notes.map((note) => note.mint))) {
    const unspent = notes
      .filter((note) => note.mint === mint && consumed.get(note.input.note_commitment) !== true)
      .reduce((sum, note) => sum + note.value, 0n);
    const row = audit.mints.find((m) => m.mint === mint);
    assert.equal(row?.notes, unspent, `mint ${mint}: the chain's unspent deposited notes`);
    assert.ok((row?.vault ?? 0n) >= unspent, `mint ${mint}: the vault covers its notes`);
  }
  assert.equal(
    audit.mints.reduce((sum, m) => sum + m.hidden, 0),
    appended,
    "the landed batches' outputs, and only they, are hidden",
  );
  return settled.length;
}
