/**
 * The venue core alone (issue 3): a realistic mix of place, cancel and modify over several markets
 * whose books are 10,000 orders deep, the time to clear one batch as a function of depth, and the
 * time to clear the two books built to make allocation expensive (all-or-none sizes that never
 * match, and every order of one owner).
 *
 * Baseline: the same place/cancel/modify flow through nodejs-order-book (a popular npm limit order
 * book) in the same process. It does far less per operation (no signature-bound identity, nonces,
 * notes, sessions or repeat detection), so the comparison is our complete intake against a bare book.
 *
 * Feeding: the mix is generated in chunks of MIX_CHUNK operations just before they are applied, and
 * only the applying is timed, for the core and the baseline alike. In the venue the sequencer applies
 * commands its intake has just decoded; a run that first built all 100,000 commands (with their
 * dozen hex strings each) would mostly measure cache misses on that pile instead.
 *
 * Warm-up: the mix runs once, for the core and the baseline, before the recorded runs; batches of
 * small books of every kind clear untimed before the clearing figures (see warmUpClears), and each
 * depth clears once untimed. The figures are a venue's steady state (code compiled and optimised),
 * not the first operations a process ever runs.
 *
 * Hostile books: one book per kind, then consecutive batches over it (it rests, since nothing in it
 * can trade, so each slot's batch repeats the same work, as it would under an attack).
 *
 * Clearing time: the heap is collected before each timed batch, so garbage left by building the book just before
 * does not land in the figure (the tick's own allocations still count). The core holds only the book
 * being cleared; in a heap that also holds other markets' orders each row read is likelier to miss
 * the caches, and with 40,000 other orders alive a 10,000-order clear measured about 1 ms more.
 *
 * The note-commitment re-derivation is injected as a lookup of commitments computed before the
 * timed section: in the venue it belongs to the intake workers (Poseidon costs ~80 us), not to the
 * sequencer thread measured here. The lookup is keyed by the inner hash, still compares all three
 * inputs, and consumes its entry as the venue's memo does.
 *
 * The ceiling of this machine, printed beside the core: the same mix doing nothing but the two
 * uniqueness checks the rules cannot skip (a fresh order id, a free note) in V8 Maps, and the cost
 * of one read at a random place in a working set far larger than the caches. docs/core.md ("Fifth
 * pass") explains why these two figures, and not the core's logic, bound the operations per second.
 */
import { createHash } from 'node:crypto';
import { type Command, type CoreConfig, type MarketConfig, VenueCore } from '@venue/core';
import type { PlaceOrder } from '@venue/protocol';
import { OrderBook, Side } from 'nodejs-order-book';
import { childJson, type Figure, figure, summarise } from './harness.ts';

const SESSION = 'ab'.repeat(32);
const ROOT = 'cd'.repeat(32);
const MARKETS = 4;
const KEYS = 256;
/** Operations generated (untimed) and then applied (timed) at a time; see the header. */
const MIX_CHUNK = 1_000;
/** The core never reads signatures or proofs (intake verified them), so one placeholder serves all. */
const SIGNATURE = '00'.repeat(64);
const PROOF = '00'.repeat(256);

/** Inner hash -> the inputs and result of its re-derivation, computed before the timed section. */
const commitments = new Map<string, { owner: string; value: bigint; commitment: string }>();

/**
 * Only the orders of the stream or book being applied need their commitments; dropping the rest
 * keeps the process's heap (and so every collection's work) the size of one run.
 */
function forgetCommitments(): void {
  commitments.clear();
}

/**
 * The stand-in re-derivation: one lookup, and all three inputs must match what was derived. An entry
 * is consumed by its lookup, as the venue's CommitmentMemo consumes its own: the memo holds only the
 * orders in flight, not every order ever placed (a lookup in a map of 100,000 cold entries costs
 * about 500 ns here, in a map the size of one chunk about 100 ns).
 */
function lookUpCommitment(owner: string, inner: string, value: bigint): string {
  const known = commitments.get(inner);
  if (known === undefined) return '';
  commitments.delete(inner);
  return known.owner === owner && known.value === value ? known.commitment : '';
}

const CONFIG: CoreConfig = {
  treeCount: 1,
  settlementBufferSlots: 10n,
  orderLifetimeSlotsMax: 4500n,
  lockDurationSlots: 50n,
  retentionSlots: 100n,
  accountOpenOrdersMax: 1_000_000,
  rootWindowMax: 8,
  noteCommitment: lookUpCommitment,
};

function hex(label: string, bytes = 32): string {
  return createHash('sha256')
    .update(label)
    .digest('hex')
    .slice(0, bytes * 2);
}

function market(i: number): MarketConfig {
  const id = `Mkt${i}`.padEnd(32, '1');
  return {
    symbol: `M${i}-USDC`,
    marketId: id,
    baseMint: id,
    quoteMint: id,
    tickSize: 1n,
    minSize: 1n,
    priceScale: 1n,
    oracleFeed: id,
    bandBps: 5000n,
    batchIntervalSlots: 1n,
  };
}

/** A limit order body whose commitment the benchmark's lookup re-derives. */
function orderFor(o: {
  label: string;
  market: number;
  side: 'bid' | 'ask';
  price: bigint;
  amount: bigint;
  key: string;
  nonce: bigint;
  /** The note owner; by default one per key. */
  owner?: string;
  minFill?: bigint;
}): PlaceOrder {
  const owner = hex(`owner-${o.owner ?? o.key}`);
  const inner = hex(`inner-${o.label}`);
  const commitment = hex(`note-${o.label}`);
  commitments.set(inner, { owner, value: o.side === 'bid' ? o.amount * o.price : o.amount, commitment });
  const order: PlaceOrder = {
    symbol: `M${o.market}-USDC`,
    side: o.side,
    order_type: 'limit',
    amount: o.amount,
    price_limit: o.price,
    expiry_slot: 4000n,
    order_id: hex(`order-${o.label}`, 16),
    note_commitment: commitment,
    arrival_nonce: o.nonce,
    trading_key: hex(`key-${o.key}`),
    trading_key_signature: SIGNATURE,
    owner_commitment: owner,
    note_inner_hash: inner,
    merkle_root: ROOT,
    valid_input_proof: PROOF,
    viewing_pubkey: hex('view'),
    session_id: SESSION,
  };
  if (o.minFill !== undefined) order.min_fill_size = o.minFill;
  return order;
}

interface Op {
  kind: 'place' | 'cancel' | 'modify';
  market: number;
  id: string;
  side: 'bid' | 'ask';
  price: bigint;
  amount: bigint;
  command: Command;
}

interface Resting {
  id: string;
  market: number;
  key: string;
  side: 'bid' | 'ask';
  price: bigint;
  amount: bigint;
}

/**
 * A deterministic operation stream: `setup` builds the books, then `next(count)` hands out the
 * measured mix (60% place, 30% cancel, 10% modify) a chunk at a time. Two streams made with the same
 * depth produce the same operations.
 */
export class OperationStream {
  readonly setup: Op[] = [];
  #seq = 0;
  #mixIndex = 0;
  #rng = 12345;
  readonly #depth: number;
  readonly #nonces = new Map<string, bigint>();
  readonly #cancelNonces = new Map<string, bigint>();
  readonly #live: Resting[] = [];

  constructor(depth: number) {
    this.#depth = depth;
    for (let m = 0; m < MARKETS; m++) for (let i = 0; i < depth; i++) this.setup.push(this.#place(m, i));
  }

  next(count: number): Op[] {
    const ops: Op[] = [];
    for (let n = 0; n < count; n++) {
      const i = this.#mixIndex;
      this.#mixIndex += 1;
      const r = this.#random();
      const m = Math.floor(this.#random() * MARKETS);
      if (r < 0.6 || this.#live.length === 0) {
        ops.push(this.#place(m, this.#depth + i));
        continue;
      }
      const index = Math.floor(this.#random() * this.#live.length);
      const target = this.#live[index];
      if (target === undefined) continue;
      // Swap-remove: the live set's order only matters for picking, which is seeded.
      const last = this.#live.pop();
      if (last !== undefined && last !== target) this.#live[index] = last;
      ops.push(r < 0.9 ? this.#cancel(target) : this.#modify(target));
    }
    return ops;
  }

  #random(): number {
    this.#rng = (this.#rng * 1103515245 + 12345) % 2147483648;
    return this.#rng / 2147483648;
  }

  #bump(map: Map<string, bigint>, key: string): bigint {
    const n = (map.get(key) ?? 0n) + 1n;
    map.set(key, n);
    return n;
  }

  #body(m: number, side: 'bid' | 'ask', price: bigint, amount: bigint, key: string): PlaceOrder {
    this.#seq += 1;
    const nonce = this.#bump(this.#nonces, key);
    return orderFor({ label: `${this.#seq}`, market: m, side, price, amount, key, nonce });
  }

  /** A resting, non-crossing book: bids 900-999, asks 1001-1100. */
  #place(m: number, i: number): Op {
    const side = i % 2 === 0 ? 'bid' : 'ask';
    const price = side === 'bid' ? 900n + BigInt(i % 100) : 1001n + BigInt(i % 100);
    const amount = 1n + BigInt(i % 50);
    const key = `k${i % KEYS}`;
    const order = this.#body(m, side, price, amount, key);
    this.#live.push({ id: order.order_id, market: m, key, side, price, amount });
    const command: Command = {
      type: 'place',
      order,
      bodyDigest: hex(`digest-${this.#seq}`),
      accountId: `acct-${key}`,
      connectionId: null,
      slot: 0n,
    };
    return { kind: 'place', market: m, id: order.order_id, side, price, amount, command };
  }

  #cancel(target: Resting): Op {
    const command: Command = {
      type: 'cancel',
      orderId: target.id,
      params: {
        trading_key: hex(`key-${target.key}`),
        cancel_nonce: this.#bump(this.#cancelNonces, target.key),
        session_id: SESSION,
        trading_key_signature: SIGNATURE,
      },
      accountId: `acct-${target.key}`,
      slot: 0n,
    };
    return { ...target, kind: 'cancel', command };
  }

  /** A reprice in place, one tick away from the other side. */
  #modify(target: Resting): Op {
    const cancelNonce = this.#bump(this.#cancelNonces, target.key);
    const price = target.side === 'bid' ? target.price - 1n : target.price + 1n;
    const replacement = {
      ...this.#body(target.market, target.side, price, target.amount, target.key),
      order_id: target.id,
    };
    this.#live.push({ ...target, price });
    const command: Command = {
      type: 'modify',
      oldOrderId: target.id,
      request: { cancel_signature: SIGNATURE, cancel_nonce: cancelNonce, replacement },
      replacementDigest: hex(`digest-${this.#seq}`),
      accountId: `acct-${target.key}`,
      connectionId: null,
      slot: 0n,
    };
    return {
      kind: 'modify',
      market: target.market,
      id: target.id,
      side: target.side,
      price,
      amount: target.amount,
      command,
    };
  }
}

export function freshCore(): VenueCore {
  const core = new VenueCore(CONFIG);
  core.apply({ type: 'boot', sessionId: SESSION, slot: 0n });
  for (let m = 0; m < MARKETS; m++) {
    core.apply({ type: 'add_market', market: market(m) });
    core.apply({ type: 'oracle_price', marketId: market(m).marketId, price: 1000n, slot: 0n });
  }
  core.apply({ type: 'roots', treeId: 0, roots: [ROOT], slot: 0n });
  return core;
}

function baselineBooks(setup: Op[]): OrderBook[] {
  const books = Array.from({ length: MARKETS }, () => new OrderBook());
  for (const op of setup) applyBaseline(books, op);
  return books;
}

function applyBaseline(books: OrderBook[], op: Op): void {
  const book = books[op.market];
  if (book === undefined) return;
  if (op.kind === 'place') {
    book.limit({
      side: op.side === 'bid' ? Side.BUY : Side.SELL,
      id: op.id,
      size: Number(op.amount),
      price: Number(op.price),
    });
  } else if (op.kind === 'cancel') {
    book.cancel(op.id);
  } else {
    book.modify(op.id, { price: Number(op.price) });
  }
}

/**
 * The uniqueness checks alone: every order id ever booked (finished orders stay for their
 * retention, as in the core) and every note behind an open order. A place looks both up and files
 * both; a cancel finds its order and frees its note; a reprice in place (the mix's modify) finds the
 * order, checks the new note and moves the order to it. No rules, rows, book, nonces or events.
 */
class UniquenessChecksAlone {
  readonly #orderIds = new Map<string, string>();
  readonly #notes = new Map<string, string>();

  apply(command: Command): void {
    if (command.type === 'place') {
      const { order_id: id, note_commitment: note } = command.order;
      this.#fresh(id, note);
      this.#orderIds.set(id, note);
      this.#notes.set(note, id);
    } else if (command.type === 'cancel') {
      this.#notes.delete(this.#known(command.orderId));
    } else if (command.type === 'modify') {
      const { order_id: id, note_commitment: note } = command.request.replacement;
      const old = this.#known(command.oldOrderId);
      if (this.#notes.get(note) !== undefined) throw new Error('uniqueness floor: note reused');
      this.#notes.delete(old);
      this.#orderIds.set(id, note);
      this.#notes.set(note, id);
    }
  }

  #fresh(id: string, note: string): void {
    if (this.#orderIds.get(id) !== undefined || this.#notes.get(note) !== undefined) {
      throw new Error('uniqueness floor: id or note reused');
    }
  }

  #known(id: string): string {
    const note = this.#orderIds.get(id);
    if (note === undefined) throw new Error(`uniqueness floor: order ${id} unknown`);
    return note;
  }
}

/**
 * Nanoseconds per dependent read at random 64-byte lines of a `bytes` working set (a pointer chase,
 * so each read waits for the one before, as a hash-table probe waits for its bucket).
 */
function dependentReadNs(bytes: number, reads: number): number {
  const STRIDE = 16; // Int32 slots per 64-byte line
  const lines = Math.floor(bytes / 64);
  const next = new Int32Array(lines * STRIDE);
  const order = Array.from({ length: lines }, (_, i) => i);
  let seed = 7;
  for (let i = lines - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const j = seed % (i + 1);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  for (let i = 0; i < lines; i++)
    next[(order[i] as number) * STRIDE] = (order[(i + 1) % lines] as number) * STRIDE;
  let at = 0;
  for (let i = 0; i < lines; i++) at = next[at] as number; // one lap untimed: pages mapped, code optimised
  const start = process.hrtime.bigint();
  for (let i = 0; i < reads; i++) at = next[at] as number;
  const nanos = Number(process.hrtime.bigint() - start);
  if (at < 0) throw new Error('unreachable: keeps the chase from being optimised away');
  return nanos / reads;
}

/** Operations per second over `count` operations of `stream`, timing only the applying. */
function timeMix(apply: (op: Op) => void, stream: OperationStream, count: number): number {
  let nanos = 0n;
  for (let done = 0; done < count; done += MIX_CHUNK) {
    const chunk = stream.next(Math.min(MIX_CHUNK, count - done));
    const start = process.hrtime.bigint();
    for (const op of chunk) apply(op);
    nanos += process.hrtime.bigint() - start;
  }
  return count / (Number(nanos) / 1e9);
}

/** Per-operation latency percentiles in microseconds, fed the same way as timeMix. */
function latencyUs(apply: (op: Op) => void, stream: OperationStream, count: number) {
  const samples = new Float64Array(count);
  for (let done = 0; done < count; done += MIX_CHUNK) {
    const chunk = stream.next(Math.min(MIX_CHUNK, count - done));
    chunk.forEach((op, i) => {
      const start = process.hrtime.bigint();
      apply(op);
      samples[done + i] = Number(process.hrtime.bigint() - start) / 1e3;
    });
  }
  samples.sort();
  return { p50: samples[Math.floor(count * 0.5)] ?? 0, p99: samples[Math.floor(count * 0.99)] ?? 0 };
}

/**
 * Latency percentiles of the mix on a fresh core. The core is local to this function, so it can be
 * collected before the clearing figures: a 40,000-order core left alive spreads the heap and made a
 * 10,000-order clear about a millisecond slower (core.md, "Sixth pass").
 */
function latencyOfMix(depth: number, count: number): { p50: number; p99: number } {
  forgetCommitments();
  const stream = new OperationStream(depth);
  const core = freshCore();
  for (const op of stream.setup) core.apply(op.command);
  return latencyUs((op) => core.apply(op.command), stream, count);
}

/**
 * The books a batch is cleared on. `crossing`: bids 950-1049 against asks 951-1050, about half the
 * book fills. The two hostile books cross the same way but nothing can fill, so the allocation walk
 * would look at every pair: `all_or_none` (every order all-or-none, bids of even and asks of odd
 * size) and `single_owner` (every order backed by one owner's notes: each pair is a self-trade).
 */
type ClearBook = 'crossing' | 'all_or_none' | 'single_owner';

/** A core whose first market holds `depth` orders of the given kind, all placed in slot 0. */
function bookOf(depth: number, kind: ClearBook): VenueCore {
  forgetCommitments();
  const core = freshCore();
  for (let i = 0; i < depth; i++) {
    const side = i % 2 === 0 ? 'bid' : 'ask';
    const price = side === 'bid' ? 950n + BigInt(i % 100) : 951n + BigInt((i * 7) % 100);
    const half = BigInt((i >> 1) % 25);
    const amount =
      kind === 'all_or_none' ? (side === 'bid' ? 2n + 2n * half : 1n + 2n * half) : 1n + BigInt(i % 50);
    const label = `c${kind}${depth}-${i}`;
    const order = orderFor({
      label,
      market: 0,
      side,
      price,
      amount,
      key: label,
      nonce: 1n,
      ...(kind === 'single_owner' ? { owner: 'whale' } : {}),
      ...(kind === 'all_or_none' ? { minFill: amount } : {}),
    });
    core.apply({
      type: 'place',
      order,
      bodyDigest: hex(`cdigest-${label}`),
      accountId: `acct-c${i % KEYS}`,
      connectionId: null,
      slot: 0n,
    });
  }
  return core;
}

/**
 * Collects the garbage of building the book, then waits while the collector's helper threads finish
 * sweeping what it freed: the forced collection's sweeping otherwise runs on the other core during
 * the timed tick, and the main thread helps it when it allocates (measured: 33-59 ms of CPU inside
 * 28-35 ms ticks of a 100,000-order book, D148). A venue's tick meets a collection's aftermath now and
 * then, not each time right after a collection of the whole book.
 */
function collectBeforeTiming(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return;
  gc();
  Atomics.wait(SLEEPER, 0, 0, SWEEP_WAIT_MS);
}

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));
const SWEEP_WAIT_MS = Number(process.env['BENCH_SWEEP_WAIT_MS'] ?? 100);

/** Time of the batch the tick to `slot` runs (every slot is a batch slot; nothing expires before 4000). */
function batchTimeMs(core: VenueCore, slot: bigint, kind: ClearBook): number {
  // Collect the garbage of building the book first, so the figure is the batch's own cost (npm run
  // bench exposes gc); the tick's own allocations still count.
  collectBeforeTiming();
  const start = process.hrtime.bigint();
  const events = core.apply({ type: 'tick', slot });
  const elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
  // The figure is only meaningful if the batch really ran the allocation (and, for the crossing
  // book, filled): check it, outside the timing.
  const batch = events.find((e) => e.type === 'batch');
  const ran = batch?.type === 'batch' && batch.result.clearingPrice !== null;
  const filled = batch?.type === 'batch' && batch.result.fills.length > 0;
  if (!ran || filled !== (kind === 'crossing'))
    throw new Error(`clear benchmark (${kind}): unexpected batch`);
  return elapsedMs;
}

/** Time to clear the first batch of a market whose book holds `depth` orders of the given kind. */
export function clearTimeMs(depth: number, kind: ClearBook = 'crossing'): number {
  return batchTimeMs(bookOf(depth, kind), 1n, kind);
}

/** Untimed batches over each hostile book before its timed ones (see warmUpClears). */
const HOSTILE_WARM_UP_BATCHES = 5;

/**
 * Times of `count` consecutive batches over one hostile book. Nothing in it can trade, so it rests
 * and every slot's batch does the same work again, which is what an attacker would make the venue
 * do. The first HOSTILE_WARM_UP_BATCHES batches are not counted (warm-up).
 */
export function hostileBatchTimesMs(depth: number, kind: ClearBook, count: number): number[] {
  const core = bookOf(depth, kind);
  for (let slot = 1; slot <= HOSTILE_WARM_UP_BATCHES; slot++) batchTimeMs(core, BigInt(slot), kind);
  return Array.from({ length: count }, (_, i) =>
    batchTimeMs(core, BigInt(HOSTILE_WARM_UP_BATCHES + 1 + i), kind),
  );
}

/**
 * A venue clears a batch per market every slot, so its batch code runs optimised with feedback from
 * every kind of book. A benchmark that clears only a handful of books measures the compiler instead
 * (code compiled mid-loop, then thrown away when a branch it has not seen runs). So, untimed: small
 * crossing books, and hostile books deep enough to spend the allocation budget and walk strictly.
 */
const WARM_UP_BATCHES = 40;
const WARM_UP_HOSTILE_DEPTH = 1_000;

function warmUpClears(quick: boolean): void {
  const batches = quick ? WARM_UP_BATCHES / 4 : WARM_UP_BATCHES;
  for (let batch = 0; batch < batches; batch++) {
    clearTimeMs(300);
    if (batch % 4 === 0) {
      clearTimeMs(WARM_UP_HOSTILE_DEPTH, 'all_or_none');
      clearTimeMs(WARM_UP_HOSTILE_DEPTH, 'single_owner');
    }
  }
}

export function run(quick: boolean): Figure[] {
  const depth = quick ? 2_000 : 10_000;
  const mixCount = quick ? 20_000 : 100_000;
  const runs = quick ? 3 : 5;
  process.stderr.write(
    `core: ${MARKETS} markets, books ${depth} deep, ${mixCount} mixed operations in chunks of ${MIX_CHUNK}, ${runs} runs\n`,
  );
  const ours: number[] = [];
  const theirs: number[] = [];
  const floors: number[] = [];
  // Run 0 warms both up (as harness.opsPerSecond does) and is not recorded.
  for (let run = 0; run <= runs; run++) {
    forgetCommitments();
    const stream = new OperationStream(depth);
    const core = freshCore();
    for (const op of stream.setup) core.apply(op.command);
    const our = timeMix((op) => core.apply(op.command), stream, mixCount);
    const same = new OperationStream(depth);
    const books = baselineBooks(same.setup);
    const their = timeMix((op) => applyBaseline(books, op), same, mixCount);
    const alone = new UniquenessChecksAlone();
    const again = new OperationStream(depth);
    for (const op of again.setup) alone.apply(op.command);
    const floor = timeMix((op) => alone.apply(op.command), again, mixCount);
    if (run === 0) continue;
    ours.push(our);
    theirs.push(their);
    floors.push(floor);
  }
  const latency = latencyOfMix(depth, mixCount);
  const baseline = summarise(theirs);
  const figures = [
    figure('core', 'place_cancel_modify_mix', 'ops/s', 'higher', summarise(ours), {
      name: 'nodejs-order-book',
      value: Math.round(baseline.median),
    }),
    // No baseline: this is the ceiling the core is measured against (see UniquenessChecksAlone).
    figure('core', 'uniqueness_checks_alone_mix', 'ops/s', 'higher', summarise(floors), null),
    figure('core', 'op_p50_us', 'us', 'lower', { median: latency.p50, spread: 0, runs: 1 }, null),
    figure('core', 'op_p99_us', 'us', 'lower', { median: latency.p99, spread: 0, runs: 1 }, null),
  ];
  const reads = quick ? 1_000_000 : 4_000_000;
  const cached = summarise(Array.from({ length: runs }, () => dependentReadNs(256 * 1024, reads)));
  const far = summarise(Array.from({ length: runs }, () => dependentReadNs(64 * 1024 * 1024, reads)));
  // Machine figures, not the venue's: no baseline (a ratio would read as the core being behind).
  figures.push(
    figure('core', 'dependent_read_256kb_ns', 'ns', 'lower', cached, null),
    figure('core', 'dependent_read_64mb_ns', 'ns', 'lower', far, null),
  );
  warmUpClears(quick);
  figures.push(...clearingFigures(quick));
  const hostileDepth = quick ? 2_000 : 10_000;
  for (const kind of ['all_or_none', 'single_owner'] as const) {
    const samples = hostileBatchTimesMs(hostileDepth, kind, runs);
    figures.push(
      figure('core', `clear_batch_${hostileDepth}_${kind}_ms`, 'ms', 'lower', summarise(samples), null),
    );
  }
  return figures;
}

// ---- Clearing as the book deepens, and a tick over many markets (issue 21) ----

/**
 * Crossing books of growing depth, and one tick over 64 markets of 1,000 orders. Run alone with
 * `npm run bench -- clearing`; `core` prints the same figures after its own.
 *
 * Baselines. No npm library runs a uniform-price batch auction, so the question each figure answers
 * sets its baseline, measured in the same run:
 * - a crossing book of N orders: linear growth from a smaller clear (1,000 orders for N up to
 *   10,000, 10,000 orders above), its time times N / its depth. A ratio of 1 or more means clearing
 *   grew no faster than the book.
 * - 64 markets whose books cannot cross: the same tick with the shortcut for such books turned off
 *   (CoreConfig.quietBookShortcut), which is what every tick cost before it: the full auction on
 *   every book. 64 crossing markets take the full auction either way, so their tick has no baseline.
 */
export function clearingFigures(quick: boolean): Figure[] {
  const runs = quick ? 3 : 5;
  const figures: Figure[] = [];
  const depths = quick ? [1_000, 10_000, 20_000] : [1_000, 5_000, 10_000, 20_000, 50_000, 100_000];
  const medians = new Map<number, number>();
  for (const depth of depths) {
    clearTimeMs(depth); // warm-up at this depth, untimed: see the header
    const measured = summarise(Array.from({ length: runs }, () => clearTimeMs(depth)));
    medians.set(depth, measured.median);
    const anchor = depth > 10_000 ? 10_000 : 1_000;
    const anchorMs = medians.get(anchor);
    const baseline =
      depth === anchor || anchorMs === undefined
        ? null
        : { name: `linear_from_${anchor}_orders`, value: round3((anchorMs * depth) / anchor) };
    figures.push(figure('core', `clear_batch_${depth}_orders_ms`, 'ms', 'lower', measured, baseline));
  }
  const deepest = depths[depths.length - 1] as number;
  const deepestMs = medians.get(deepest) as number;
  figures.push(
    figure(
      'core',
      `clear_batch_${deepest}_orders_young_generation_${LARGE_SEMI_SPACE_MB}mb_ms`,
      'ms',
      'lower',
      summarise(clearSamplesInLargeYoungGeneration(deepest, runs, quick)),
      { name: 'default_young_generation', value: round3(deepestMs) },
    ),
  );
  const markets = quick ? 16 : MANY_MARKETS;
  const quiet = manyMarketTickMs(markets, 'resting', true, runs);
  const full = manyMarketTickMs(markets, 'resting', false, runs);
  figures.push(
    figure('core', `tick_${markets}_markets_1000_resting_orders_ms`, 'ms', 'lower', summarise(quiet), {
      name: 'full_auction_every_book',
      value: round3(summarise(full).median),
    }),
    figure(
      'core',
      `tick_${markets}_markets_1000_crossing_orders_ms`,
      'ms',
      'lower',
      summarise(manyMarketTickMs(markets, 'crossing', true, quick ? 1 : 3)),
      null,
    ),
  );
  return figures;
}

/**
 * The deepest clear again, in a child process whose young generation holds the whole batch
 * (`--max-semi-space-size`), so no collection runs inside the tick. Beside the default figure of the
 * same run it shows how much of a deep clear is the collector copying the batch's output
 * (docs/core-auction.md, "A book that cannot cross"): the core's own share is this figure.
 */
const LARGE_SEMI_SPACE_MB = 64;
const CLEAR_CHILD = new URL('./clear-child.ts', import.meta.url).pathname;

function clearSamplesInLargeYoungGeneration(depth: number, runs: number, quick: boolean): number[] {
  return childJson<number[]>(
    CLEAR_CHILD,
    [String(depth), String(runs), quick ? 'quick' : 'full'],
    [`--max-semi-space-size=${LARGE_SEMI_SPACE_MB}`],
  );
}

/** Timed clears of a `depth`-order crossing book after the same warm-up as the clearing figures. */
export function clearSamplesMs(depth: number, runs: number, quick: boolean): number[] {
  warmUpClears(quick);
  clearTimeMs(depth); // warm-up at this depth, untimed
  return Array.from({ length: runs }, () => clearTimeMs(depth));
}

const MANY_MARKETS = 64;
const ORDERS_PER_MARKET = 1_000;

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** market(i) with an id that stays distinct past ten markets (market(1) and market(11) share one). */
function manyMarket(i: number): MarketConfig {
  const id = `Mkt${i}z`.padEnd(32, '1');
  return { ...market(i), marketId: id, baseMint: id, quoteMint: id, oracleFeed: id };
}

/** A core with `markets` markets of ORDERS_PER_MARKET orders each, placed in slot 0. */
function manyMarketCore(markets: number, kind: 'resting' | 'crossing', shortcut: boolean): VenueCore {
  forgetCommitments();
  const core = new VenueCore({ ...CONFIG, quietBookShortcut: shortcut });
  core.apply({ type: 'boot', sessionId: SESSION, slot: 0n });
  for (let m = 0; m < markets; m++) {
    core.apply({ type: 'add_market', market: manyMarket(m) });
    core.apply({ type: 'oracle_price', marketId: manyMarket(m).marketId, price: 1000n, slot: 0n });
  }
  core.apply({ type: 'roots', treeId: 0, roots: [ROOT], slot: 0n });
  for (let m = 0; m < markets; m++) {
    for (let i = 0; i < ORDERS_PER_MARKET; i++) {
      const side = i % 2 === 0 ? 'bid' : 'ask';
      // Resting: bids 900 to 999 and asks 1,001 to 1,100, a spread the book never closes.
      const price =
        kind === 'resting'
          ? side === 'bid'
            ? 999n - BigInt(i % 100)
            : 1001n + BigInt((i * 7) % 100)
          : side === 'bid'
            ? 950n + BigInt(i % 100)
            : 951n + BigInt((i * 7) % 100);
      const label = `t${kind}${m}-${i}`;
      const order = orderFor({
        label,
        market: m,
        side,
        price,
        amount: 1n + BigInt(i % 50),
        key: label,
        nonce: 1n,
      });
      core.apply({
        type: 'place',
        order,
        bodyDigest: hex(`tdigest-${label}`),
        accountId: `acct-t${i % KEYS}`,
        connectionId: null,
        slot: 0n,
      });
    }
  }
  return core;
}

/**
 * Times of `count` ticks over many markets. Resting books: one core, consecutive slots (nothing
 * trades, so every tick repeats the same work), after untimed ones, each sample the mean of
 * TICKS_PER_SAMPLE ticks. Crossing books: a fresh core per
 * tick, since a tick leaves the matched orders pending.
 */
function manyMarketTickMs(
  markets: number,
  kind: 'resting' | 'crossing',
  shortcut: boolean,
  count: number,
): number[] {
  const timeTick = (core: VenueCore, slot: bigint): number => {
    // Crossing ticks start from a collected heap, as clearTimeMs does; quiet ticks allocate little
    // and run back to back, as a venue's slots do.
    if (kind === 'crossing') collectBeforeTiming();
    const start = process.hrtime.bigint();
    const events = core.apply({ type: 'tick', slot });
    const elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
    const batches = events.filter((e) => e.type === 'batch');
    const filled = batches.filter((e) => e.type === 'batch' && e.result.fills.length > 0).length;
    if (batches.length !== markets || filled !== (kind === 'crossing' ? markets : 0)) {
      throw new Error(`tick benchmark (${kind}): ${batches.length} batches, ${filled} filled`);
    }
    return elapsedMs;
  };
  if (kind === 'crossing') {
    return Array.from({ length: count }, () => timeTick(manyMarketCore(markets, kind, shortcut), 1n));
  }
  const core = manyMarketCore(markets, kind, shortcut);
  const warmUp = 20;
  for (let slot = 1; slot <= warmUp; slot++) timeTick(core, BigInt(slot));
  // A quiet tick is far shorter than a scheduler's time slice on a busy machine: each sample is the
  // mean of TICKS_PER_SAMPLE consecutive ticks, so one preemption does not become the figure.
  let slot = warmUp;
  return Array.from({ length: count }, () => {
    let totalMs = 0;
    for (let tick = 0; tick < TICKS_PER_SAMPLE; tick++) {
      slot += 1;
      totalMs += timeTick(core, BigInt(slot));
    }
    return totalMs / TICKS_PER_SAMPLE;
  });
}

const TICKS_PER_SAMPLE = 10;
