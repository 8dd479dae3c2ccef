/**
 * Issue 9's crash test. The venue runs in its own process with a state directory; this process is
 * its client. Each cycle starts the venue, checks that everything the client was ever told succeeded
 * is still there (and that nothing whose outcome it never learned is half-applied), drives signed
 * places, cancels and modifies from several traders at once, and kills the venue with SIGKILL at a
 * random moment. At the end the venue stops gracefully and its state must equal a replay of its
 * journal from the first record, and the state directory must hold no order value in clear.
 */

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { VenueCore } from '@venue/core';
import {
  CancelParamsSchema,
  generateTradingKey,
  ModifyRequestSchema,
  type PlaceOrder,
  PlaceOrderSchema,
  signCancel,
  signModify,
  signPlaceOrder,
  type TradingKey,
  wireJsonText,
} from '@venue/protocol';
import { bodyOf, CRASH_CORE_CONFIG, type Exchange, envelopeOf, httpsCall, orderBody } from '@venue/testing';
import { createSimulatedPlatform, parseSnapshot, recoverJournal } from '../src/index.ts';

const CHILD = new URL('../../testing/src/crash-venue-child.ts', import.meta.url).pathname;
const CYCLES = 6;
/**
 * Acknowledged operations each cycle writes at least before its kill: six cycles of 60 cross the
 * child's snapshot interval (150 records) at least twice, so the run has a snapshot to check.
 */
const ACKED_PER_CYCLE_MIN = 60;
const TRADERS = 3;

interface Booted {
  readonly child: ChildProcess;
  readonly port: number;
  readonly certPem: string;
  readonly sessionId: string;
  readonly replayed: number;
  readonly lines: AsyncIterator<string>;
}

interface World {
  genesisMs: number;
  platformSecretHex: string;
  traders: { api_key: string; api_secret: string; passphrase: string; account_id: string }[];
}

type Outcome = 'acked' | 'refused' | 'unknown';

/** What the client did to one order and what it was told. */
interface OrderLog {
  readonly orderId: string;
  readonly trader: number;
  place: Outcome;
  cancel: Outcome | null;
  /** A modify that replaced this order with `replacedBy` (a new id). */
  modify: { outcome: Outcome; replacedBy: string } | null;
  expirySlot: bigint;
}

interface TraderState {
  readonly key: TradingKey;
  token: string;
  arrivalNonce: bigint;
  cancelNonce: bigint;
  lastAckedArrivalNonce: bigint;
}

/** Children still running, killed whatever happens so a failed run never leaves a venue behind. */
const LIVE = new Set<ChildProcess>();

function startVenue(dir: string): Promise<Booted> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, JSON.stringify({ dir, traders: TRADERS, snapshotIntervalRecords: 150 })],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  LIVE.add(child);
  child.once('exit', () => LIVE.delete(child));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  return (async () => {
    const first = await lines.next();
    if (first.done === true) throw new Error(`the venue did not start: ${stderr}`);
    const { ready } = JSON.parse(first.value) as {
      ready: { port: number; certPem: string; sessionId: string; replayed: number };
    };
    return { child, lines, ...ready };
  })();
}

function kill(venue: Booted): Promise<void> {
  return new Promise((resolve) => {
    venue.child.once('exit', () => resolve());
    venue.child.kill('SIGKILL');
  });
}

async function call(
  venue: Booted,
  path: string,
  options: Parameters<typeof httpsCall>[3],
): Promise<Exchange> {
  for (;;) {
    const exchange = await httpsCall(venue.port, venue.certPem, path, options);
    if (exchange.status !== 429) return exchange;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function outcomeOf(exchange: Exchange): Outcome {
  if (exchange.status === 200) return 'acked';
  // A 503 (busy, journal) may or may not have been applied only if the venue says nothing changed;
  // every refusal the venue sends is an error envelope that promises nothing changed.
  envelopeOf(exchange);
  return 'refused';
}

describe('crash recovery (SIGKILL at random moments)', { timeout: 240_000 }, () => {
  it('keeps every acknowledged operation, half-applies nothing, and equals a replay from scratch', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'venue-crash-'));
    try {
      const orders = new Map<string, OrderLog>();
      const traders: TraderState[] = Array.from({ length: TRADERS }, () => ({
        key: generateTradingKey(),
        token: '',
        arrivalNonce: 0n,
        cancelNonce: 0n,
        lastAckedArrivalNonce: 0n,
      }));
      let nextId = randomInt(1, 1_000_000_000) * 1000;
      let acked = 0;
      let unknown = 0;
      let previousSession: string | null = null;
      let marked: PlaceOrder | null = null;

      for (let cycle = 0; cycle <= CYCLES; cycle += 1) {
        const venue = await startVenue(dir);
        const world = JSON.parse(await readFile(join(dir, 'world.json'), 'utf8')) as World;
        if (cycle > 0) assert.ok(venue.replayed > 0, 'a restart replays the journal');
        assert.notEqual(venue.sessionId, previousSession, 'every boot has a new session id');
        for (const [i, trader] of traders.entries()) {
          const credentials = world.traders[i];
          assert.ok(credentials !== undefined);
          const login = await call(venue, '/auth/token', {
            method: 'POST',
            body: JSON.stringify({
              api_key: credentials.api_key,
              api_secret: credentials.api_secret,
              passphrase: credentials.passphrase,
            }),
          });
          assert.equal(login.status, 200, `accounts survive restarts: ${login.text}`);
          trader.token = String(bodyOf(login)['access_token']);
        }
        await checkAgainstLog(venue, orders, traders);

        if (previousSession !== null) {
          // spec 2.1: a body signed for an earlier boot is refused now, however valid otherwise.
          const trader = traders[0] as TraderState;
          const slot = await currentSlot(venue);
          trader.arrivalNonce += 1n;
          // Both probes are worth at least a quote unit (a random 1-unit bid at 900 is not, and
          // would be refused for its size, 1024, before its session or nonce is looked at).
          const stale = signed(nextId++, trader, previousSession, slot, PROBE_AMOUNT);
          const refused = await call(venue, '/orders', {
            method: 'POST',
            token: trader.token,
            body: wireJsonText(PlaceOrderSchema, stale),
          });
          assert.equal(envelopeOf(refused).code, 1203, 'an old session signature is stale');
          // Nonces stay strictly increasing across the restart: the last acked one is spent.
          const replay = signed(
            nextId++,
            { ...trader, arrivalNonce: trader.lastAckedArrivalNonce },
            venue.sessionId,
            slot,
            PROBE_AMOUNT,
          );
          const reused = await call(venue, '/orders', {
            method: 'POST',
            token: trader.token,
            body: wireJsonText(PlaceOrderSchema, replay),
          });
          assert.equal(
            reused.status,
            409,
            `a nonce acknowledged before the crash stays spent: ${reused.text}`,
          );
        }
        previousSession = venue.sessionId;

        if (cycle === CYCLES) {
          // A marked order for the scan of the state directory, then a planned stop.
          const trader = traders[0] as TraderState;
          trader.arrivalNonce += 1n;
          marked = signed(nextId++, trader, venue.sessionId, await currentSlot(venue), 987_654_321_987n);
          const placed = await call(venue, '/orders', {
            method: 'POST',
            token: trader.token,
            body: wireJsonText(PlaceOrderSchema, marked),
          });
          assert.equal(placed.status, 200, placed.text);
          const liveHash = await stopGracefully(venue);
          await checkReplayFromScratch(dir, world, liveHash);
          break;
        }

        // Load until a random moment, then SIGKILL mid-flight.
        let stop = false;
        const load = traders.map(async (trader, index) => {
          while (!stop) {
            const result = await randomOperation(venue, trader, index, orders, () => nextId++);
            if (result === 'acked') acked += 1;
            if (result === 'unknown') unknown += 1;
          }
        });
        const ackedBefore = acked;
        await new Promise((resolve) => setTimeout(resolve, randomInt(150, 900)));
        // On a starved machine the pause can pass with little written: keep the load on until the
        // cycle has its share, so the run crosses the snapshot interval whatever the host's speed.
        while (acked - ackedBefore < ACKED_PER_CYCLE_MIN)
          await new Promise((resolve) => setTimeout(resolve, 10));
        await kill(venue);
        stop = true;
        await Promise.all(load);
      }
      assert.ok(acked > 50, `the load acknowledged enough operations to mean something (${acked})`);
      assert.ok(unknown > 0, 'some operations were in flight when the venue died');
      await assertNoClearText(join(dir, 'state'), marked as unknown as PlaceOrder);
    } finally {
      for (const child of LIVE) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** Base units of the stale-session and spent-nonce probes: 10 x 900 / scale is a quote unit or more. */
const PROBE_AMOUNT = 10n;

function signed(
  id: number,
  trader: TraderState,
  sessionId: string,
  slot: number,
  amount?: bigint,
): PlaceOrder {
  const side = id % 2 === 0 ? 'bid' : 'ask';
  const body = orderBody({
    id,
    key: trader.key.publicKey,
    side,
    // Bids below asks: nothing crosses, so no settlement is involved; this test is about the journal.
    price: side === 'bid' ? 900n : 1100n,
    amount: amount ?? BigInt(randomInt(1, 500)),
    // Some expire within the test, so ticks and expiries are in the journal too.
    expiry: BigInt(slot) + (id % 3 === 0 ? 15n : 3000n),
    nonce: trader.arrivalNonce,
  });
  return signPlaceOrder({ ...body, trading_key: trader.key.publicKey, session_id: sessionId }, trader.key);
}

async function currentSlot(venue: Booted): Promise<number> {
  const time = await call(venue, '/time', {});
  return Number(bodyOf(time)['slot']);
}

/** One random operation; the log records what the client was told before it is sent. */
async function randomOperation(
  venue: Booted,
  trader: TraderState,
  index: number,
  orders: Map<string, OrderLog>,
  newId: () => number,
): Promise<Outcome> {
  const mine = [...orders.values()].filter(
    (o) => o.trader === index && o.place === 'acked' && o.cancel === null && o.modify === null,
  );
  const roll = randomInt(0, 10);
  try {
    if (mine.length === 0 || roll < 6) {
      trader.arrivalNonce += 1n;
      const order = signed(newId(), trader, venue.sessionId, await currentSlot(venue));
      const log: OrderLog = {
        orderId: order.order_id,
        trader: index,
        place: 'unknown',
        cancel: null,
        modify: null,
        expirySlot: order.expiry_slot,
      };
      orders.set(order.order_id, log);
      const nonce = trader.arrivalNonce;
      log.place = outcomeOf(
        await call(venue, '/orders', {
          method: 'POST',
          token: trader.token,
          body: wireJsonText(PlaceOrderSchema, order),
        }),
      );
      if (log.place === 'acked' && nonce > trader.lastAckedArrivalNonce) trader.lastAckedArrivalNonce = nonce;
      return log.place;
    }
    const target = mine[randomInt(0, mine.length)] as OrderLog;
    if (roll < 8) {
      trader.cancelNonce += 1n;
      const params = {
        trading_key: trader.key.publicKey,
        cancel_nonce: trader.cancelNonce,
        session_id: venue.sessionId,
      };
      const signature = signCancel({ order_id: target.orderId, ...params }, trader.key);
      target.cancel = 'unknown';
      const exchange = await call(venue, `/orders/${target.orderId}`, {
        method: 'DELETE',
        token: trader.token,
        body: wireJsonText(CancelParamsSchema, { ...params, trading_key_signature: signature }),
      });
      target.cancel = outcomeOf(exchange);
      return target.cancel;
    }
    trader.cancelNonce += 1n;
    trader.arrivalNonce += 1n;
    const replacement = signed(newId(), trader, venue.sessionId, await currentSlot(venue));
    const request = signModify(target.orderId, trader.cancelNonce, replacement, trader.key);
    const log: OrderLog = {
      orderId: replacement.order_id,
      trader: index,
      place: 'unknown',
      cancel: null,
      modify: null,
      expirySlot: replacement.expiry_slot,
    };
    orders.set(replacement.order_id, log);
    target.modify = { outcome: 'unknown', replacedBy: replacement.order_id };
    const nonce = trader.arrivalNonce;
    const exchange = await call(venue, `/orders/${target.orderId}`, {
      method: 'PUT',
      token: trader.token,
      body: wireJsonText(ModifyRequestSchema, request),
    });
    target.modify.outcome = outcomeOf(exchange);
    log.place = target.modify.outcome;
    if (log.place === 'acked' && nonce > trader.lastAckedArrivalNonce) trader.lastAckedArrivalNonce = nonce;
    return log.place;
  } catch {
    // The connection died with the venue: the client never learned the outcome.
    return 'unknown';
  }
}

async function stateOf(venue: Booted, trader: TraderState, orderId: string): Promise<string | null> {
  const exchange = await call(venue, `/orders/${orderId}`, { token: trader.token });
  if (exchange.status === 404) return null;
  assert.equal(exchange.status, 200, exchange.text);
  return String(bodyOf(exchange)['state']);
}

const TERMINAL = new Set(['cancelled', 'expired', 'filled', 'settlement_failed']);

/** Every acknowledged effect is present; every unknown one is all-or-nothing. */
async function checkAgainstLog(venue: Booted, orders: Map<string, OrderLog>, traders: TraderState[]) {
  for (const log of orders.values()) {
    const trader = traders[log.trader] as TraderState;
    const state = await stateOf(venue, trader, log.orderId);
    if (log.place === 'acked') assert.notEqual(state, null, `acknowledged order ${log.orderId} was lost`);
    if (log.place === 'refused') assert.equal(state, null, `refused order ${log.orderId} exists`);
    if (state === null) {
      // An order the venue does not know cannot have been cancelled or modified through it.
      if (log.place === 'unknown') {
        orders.delete(log.orderId);
      }
      continue;
    }
    log.place = 'acked';
    if (log.cancel === 'acked')
      assert.ok(TERMINAL.has(state), `acknowledged cancel of ${log.orderId}: ${state}`);
    if (log.cancel === 'unknown') log.cancel = TERMINAL.has(state) ? 'acked' : null;
    if (log.cancel === 'refused') log.cancel = null;
    if (log.modify !== null) {
      const replacement = await stateOf(venue, trader, log.modify.replacedBy);
      if (log.modify.outcome === 'acked') {
        assert.notEqual(replacement, null, `acknowledged modify of ${log.orderId} lost its replacement`);
        assert.ok(TERMINAL.has(state), `acknowledged modify left ${log.orderId} ${state}`);
      } else if (replacement === null) {
        // Not applied at all: the original is untouched (it may have expired on its own meanwhile).
        assert.ok(state === 'resting' || state === 'expired', `half-applied modify: ${log.orderId} ${state}`);
        log.modify = null;
      } else {
        assert.equal(state, 'cancelled', `half-applied modify: replacement exists, original ${state}`);
        log.modify.outcome = 'acked';
      }
    }
  }
}

async function stopGracefully(venue: Booted): Promise<string> {
  const exited = new Promise<void>((resolve) => venue.child.once('exit', () => resolve()));
  venue.child.kill('SIGTERM');
  const line = await venue.lines.next();
  await exited;
  assert.equal(line.done, false, 'the venue reports its state hash when it stops');
  return (JSON.parse(line.value as string) as { stateHash: string }).stateHash;
}

/** Replaying the whole journal into an empty core gives the state the venue stopped with. */
async function checkReplayFromScratch(dir: string, world: World, liveHash: string) {
  const platform = createSimulatedPlatform(generateTradingKey(), Buffer.from(world.platformSecretHex, 'hex'));
  const sealingKey = platform.sealingKey('crash-test-build');
  const fromScratch = new VenueCore(CRASH_CORE_CONFIG);
  await recoverJournal({
    directory: join(dir, 'state', 'journal'),
    sealingKey,
    ignoreSnapshots: true,
    onCommand: (command) => {
      fromScratch.apply(command);
    },
  });
  assert.equal(fromScratch.stateHash(), liveHash, 'replay from the first record equals the live state');
  let fromSnapshot = new VenueCore(CRASH_CORE_CONFIG);
  const recovery = await recoverJournal({
    directory: join(dir, 'state', 'journal'),
    sealingKey,
    onSnapshot: (text) => {
      // The venue keeps its companions beside the core (venue/state-companion.ts).
      fromSnapshot = VenueCore.restore(CRASH_CORE_CONFIG, parseSnapshot(text).core);
    },
    onCommand: (command) => {
      fromSnapshot.apply(command);
    },
  });
  assert.ok(recovery.snapshot !== null, 'the run wrote snapshots');
  assert.equal(fromSnapshot.stateHash(), liveHash, 'snapshot + tail equals the live state');
}

/** No file of the state directory holds the marked order's values, as text or as raw bytes. */
async function assertNoClearText(stateDir: string, order: PlaceOrder) {
  const needles: Buffer[] = [];
  for (const hex of [order.order_id, order.note_commitment, order.trading_key, order.owner_commitment]) {
    needles.push(Buffer.from(hex, 'utf8'), Buffer.from(hex, 'hex'));
  }
  const amount = order.amount;
  needles.push(Buffer.from(amount.toString(), 'utf8'));
  const le = Buffer.alloc(8);
  le.writeBigUInt64LE(amount);
  const be = Buffer.alloc(8);
  be.writeBigUInt64BE(amount);
  needles.push(le, be);
  const files = await listFiles(stateDir);
  assert.ok(files.length >= 3, `the state directory holds the journal, snapshots and accounts: ${files}`);
  for (const file of files) {
    const bytes = await readFile(file);
    for (const needle of needles) {
      assert.equal(bytes.indexOf(needle), -1, `${file} holds a clear-text value of the marked order`);
    }
  }
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path)));
    else out.push(path);
  }
  return out;
}
