// Issue 18: every frame the stream sends decodes strictly against its protocol schema, as the SDK
// reads it (decodeServerMessage, unknown fields refused). A settling venue runs generated trading
// sessions over real sockets: places over the stream and REST, crossing pairs that fill fully or
// partially and settle on the chain (pending_settlement, fills with memos, tree pages), resting
// orders cancelled and modified over the stream, pings, refused frames, unsubscribe, token expiry
// warnings and logout. Every text received is checked as it arrived on the wire.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { StreamPublisher, StreamSession } from '@venue/adapters';
import { type DerivedNote, loadNoteHasher, type NoteHasher } from '@venue/notes';
import {
  CancelParamsSchema,
  decodeServerMessage,
  ModifyRequestSchema,
  type PlaceOrder,
  parseJsonText,
  type ServerMessage,
  stringifyJson,
  toWire,
} from '@venue/protocol';
import {
  depositFor,
  noteOrder,
  type StreamClient,
  TEST_CORE_CONFIG,
  TestVenue,
  type Trader,
  testMarket,
} from '@venue/testing';
import fc from 'fast-check';

const MARKET = testMarket('SOL-USDC');
const PRICE = 1500n;
const FINALITY = 4;
/** A guard against a venue that never answers, not a deadline: the machine may be busy. */
const WAIT_MS = 60_000;

let venue: TestVenue;
let hasher: NoteHasher;
let alice: Trader;
let bob: Trader;
let nextId = 0;

before(async () => {
  hasher = await loadNoteHasher();
  venue = await TestVenue.start({
    settlement: true,
    finalityDepth: FINALITY,
    core: { ...TEST_CORE_CONFIG, noteCommitment: hasher.noteCommitment },
  });
  venue.server.engine.record({ type: 'oracle_price', marketId: MARKET.marketId, price: PRICE });
  alice = await venue.trader('alice');
  bob = await venue.trader('bob');
});
after(() => venue.stop());

/** A logged-in socket subscribed to every channel, keeping each frame's text as it arrived. */
interface Session {
  readonly trader: Trader;
  readonly client: StreamClient;
  readonly texts: string[];
  /** The token's exact expiry, from the login reply. */
  readonly expiresAtMs: number;
}

async function session(trader: Trader): Promise<Session> {
  const client = await venue.stream();
  const texts: string[] = [];
  client.socket.on('message', (data: Buffer) => texts.push(data.toString('utf8')));
  const login = await client.request({ op: 'login', token: trader.token }, WAIT_MS);
  await client.request({ op: 'subscribe', channels: ['orders', 'fills', 'tree'] }, WAIT_MS);
  const result = login['result'] as { expires_at: number };
  return { trader, client, texts, expiresAtMs: result.expires_at };
}

/** A note of `value` deposited on the chain for `trader` (base units for an ask, quote for a bid). */
function deposit(trader: Trader, side: 'bid' | 'ask', value: bigint): DerivedNote {
  const chain = venue.chain;
  assert.ok(chain);
  return depositFor(chain, hasher, MARKET, trader, side, value);
}

/** A signed order over `note` (the test venue's proof checks pass any proof). */
function order(
  trader: Trader,
  note: DerivedNote,
  side: 'bid' | 'ask',
  amount: bigint,
  price = PRICE,
): PlaceOrder {
  const chain = venue.chain;
  assert.ok(chain);
  nextId += 1;
  const context = { chain, market: MARKET, sessionId: venue.identity.sessionId, slot: venue.clock.slot() };
  return noteOrder(context, trader, note, { side, amount, price, id: nextId });
}

async function accepted(reply: Promise<Record<string, unknown>>): Promise<void> {
  const frame = await reply;
  assert.notEqual(frame['op'], 'error', JSON.stringify(frame));
}

/** One crossing pair: alice bids `amount`, bob asks `askAmount` (a partial fill when smaller). */
async function trade(
  a: Session,
  b: Session,
  amount: bigint,
  askAmount: bigint,
  spare: bigint,
): Promise<void> {
  const bidNote = deposit(alice, 'bid', (amount * PRICE) / MARKET.priceScale + spare);
  const askNote = deposit(bob, 'ask', askAmount + spare);
  venue.advanceSlots(1); // the deposits' root reaches the venue
  const bid = order(alice, bidNote, 'bid', amount);
  await accepted(a.client.request({ op: 'order.place', params: bid }, WAIT_MS));
  const ask = order(bob, askNote, 'ask', askAmount);
  assert.equal((await venue.place(bob, ask)).status, 200);
  venue.advanceSlots(1 + FINALITY); // clear, lock, land, finalize
  await a.client.next((f) => f['channel'] === 'fills' && f['order_id'] === bid.order_id, WAIT_MS);
  await b.client.next((f) => f['channel'] === 'fills' && f['order_id'] === ask.order_id, WAIT_MS);
  // A partial fill leaves the bid's remainder resting; it is cancelled so that each step starts
  // from an empty book (resting remainders, older in time priority, would absorb a later ask).
  if (askAmount < amount) await cancelOverStream(a, bid.order_id);
}

async function cancelOverStream(a: Session, orderId: string): Promise<void> {
  nextId += 1;
  const cancel = venue.cancelParams(orderId, BigInt(nextId), alice.key);
  await accepted(
    a.client.request(
      { op: 'order.cancel', order_id: orderId, params: toWire(CancelParamsSchema, cancel) },
      WAIT_MS,
    ),
  );
  await a.client.next((f) => f['kind'] === 'cancelled' && f['order_id'] === orderId, WAIT_MS);
}

/** A bid with no ask against it rests; it is modified once, then cancelled, over the stream. */
async function restThenCancel(a: Session): Promise<void> {
  const note = deposit(alice, 'bid', 100n);
  venue.advanceSlots(1);
  const resting = order(alice, note, 'bid', 10n);
  await accepted(a.client.request({ op: 'order.place', params: resting }, WAIT_MS));
  const replacement = order(alice, note, 'bid', 5n);
  const modify = venue.modifyRequest(resting.order_id, BigInt(nextId), replacement, alice.key);
  await accepted(
    a.client.request(
      {
        op: 'order.modify',
        order_id: resting.order_id,
        params: toWire(ModifyRequestSchema, modify),
      },
      WAIT_MS,
    ),
  );
  await cancelOverStream(a, replacement.order_id);
}

const step = fc.oneof(
  fc.record({
    kind: fc.constant('trade' as const),
    amount: fc.bigInt({ min: 2n, max: 40n }),
    short: fc.bigInt({ min: 0n, max: 1n }),
    spare: fc.bigInt({ min: 0n, max: 30n }),
  }),
  fc.record({ kind: fc.constant('rest' as const) }),
  fc.record({
    kind: fc.constant('noise' as const),
    text: fc.constantFrom('{', '{"op":"nope"}', '[]', '{"op":"ping","x":1}'),
  }),
);

/** What a client reads: each text decodes strictly by its op or channel; seq has no gap. */
function decodeAll(texts: readonly string[]): ServerMessage[] {
  const messages = texts.map((text) => {
    try {
      return decodeServerMessage(parseJsonText(text, Number.MAX_SAFE_INTEGER));
    } catch (error) {
      throw new Error(`a frame outside its schema: ${(error as Error).message}: ${text.slice(0, 200)}`);
    }
  });
  assert.deepEqual(
    messages.map((m) => m.seq),
    messages.map((_, i) => i + 1),
  );
  return messages;
}

test('every frame of generated trading sessions decodes strictly against its schema', async () => {
  const seen = new Set<string>();
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 3 }), async (steps) => {
      const a = await session(alice);
      const b = await session(bob);
      for (const s of steps) {
        if (s.kind === 'trade') await trade(a, b, s.amount, s.amount - s.short, s.spare);
        else if (s.kind === 'rest') await restThenCancel(a);
        else {
          a.client.send(s.text);
          await a.client.request({ op: 'ping' }, WAIT_MS);
        }
      }
      await a.client.request({ op: 'unsubscribe', channels: ['tree'] }, WAIT_MS);
      await b.client.request({ op: 'logout' }, WAIT_MS);
      await b.client.closed;
      await a.client.close();
      for (const message of [...decodeAll(a.texts), ...decodeAll(b.texts)]) {
        seen.add(
          'channel' in message
            ? `${message.channel}${'kind' in message ? `:${message.kind}` : ''}`
            : message.op,
        );
      }
    }),
    {
      numRuns: 5,
      // First a session that holds each kind of step, so every frame kind is met whatever is drawn.
      examples: [
        [
          [
            { kind: 'trade', amount: 10n, short: 0n, spare: 5n },
            { kind: 'trade', amount: 10n, short: 1n, spare: 0n },
            { kind: 'rest' },
            { kind: 'noise', text: '{' },
          ],
        ],
      ],
    },
  );
  // The token expiry warning, last: the clock jumps to a minute before the tokens expire.
  const a = await session(alice);
  venue.clock.setNowMs(a.expiresAtMs - 30_000);
  venue.server.stream.sweep();
  await a.client.next((f) => f['op'] === 'auth_expired', WAIT_MS);
  await a.client.close();
  for (const message of decodeAll(a.texts)) seen.add('channel' in message ? message.channel : message.op);
  for (const expected of [
    'login',
    'subscribe',
    'unsubscribe',
    'order.place',
    'order.cancel',
    'order.modify',
    'pong',
    'error',
    'logout',
    'auth_expired',
    'orders:pending_settlement',
    'orders:fully_filled',
    'orders:partially_filled',
    'orders:cancelled',
    'fills',
    'tree',
  ]) {
    assert.ok(seen.has(expected), `the sessions never received ${expected}`);
  }
});

test('a frame outside its schema cannot be built, and fails loudly if forced', async () => {
  const publisher: StreamPublisher = venue.server.stream;
  const untyped: Record<string, unknown> = { channel: 'fills', order_id: 'x' };
  // @ts-expect-error: the publisher takes typed fill frames only
  assert.equal(typeof (() => publisher.publishFill(untyped, alice.accountId)), 'function');
  const send = (s: StreamSession) =>
    // @ts-expect-error: a session sends typed frames only
    s.send({ op: 'pong', extra: true });
  assert.equal(typeof send, 'function');
  // Forced past the types (a wrong-length order id), the encoder refuses it before any socket.
  const a = await session(alice);
  const forced = JSON.parse(
    stringifyJson({ channel: 'fills', order_id: 'ab', market_id: MARKET.marketId, match_id: 1n }),
  );
  assert.throws(() => publisher.publishFill(forced, alice.accountId), /a fills frame breaks its schema/);
  await a.client.close();
  assert.equal(
    a.texts.some((text) => text.includes('"order_id":"ab"')),
    false,
  );
});
