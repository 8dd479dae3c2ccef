// A two-sided quoting bot: keeps one bid and one ask of one lot on SOL-USDC around the reference
// price, and puts a quote back whenever it stops resting: filled, cancelled, expired, or dropped by
// the venue because the connection broke (cancel on disconnect is on, so a bot that dies leaves no
// stale quotes behind). After a reconnect the SDK emits a gap, the Trader reconciles every open
// order from the venue's records, and the bot re-quotes whatever is no longer open.
//
//   node quoting-bot.mjs [account]          (default bob; settings: see dev-venue.mjs)
//
// It prints one JSON line per thing it does; SIGINT or SIGTERM cancels both quotes and exits 0.
import { isTerminal, nominalCost, spentMintOf } from '@venue/sdk';
import { fund, openSession, priceNear, referencePrice } from './dev-venue.mjs';

const SYMBOL = 'SOL-USDC';
const SPREAD_BPS = 50; // each quote half a percent from the reference
const NOTES_PER_SIDE = 3; // a fill or a dropped quote still leaves a note to quote again with
const account = process.argv[2] ?? 'bob';
const say = (what, fields = {}) => console.log(JSON.stringify({ bot: what, ...fields }));

const session = await openSession(account, { cancelOnDisconnect: true });
const instrument = session.instruments.get(SYMBOL);
const quotes = { bid: undefined, ask: undefined }; // order id per side
let busy = Promise.resolve();
let stopping = false;

async function quoteSide(side) {
  const reference = await referencePrice(instrument);
  const order = {
    symbol: SYMBOL,
    side,
    amount: instrument.min_size,
    price: priceNear(reference, side === 'bid' ? -SPREAD_BPS : SPREAD_BPS, instrument),
  };
  const placed = await session.trader.place(order, session.stream);
  quotes[side] = placed.order_id;
  say('quoted', { side, price: String(order.price), order_id: placed.order_id });
}

/** Re-quotes each side whose order the local view (events, replies, reconciled records) says is over. */
function refresh(why) {
  busy = busy.then(async () => {
    if (stopping) return;
    for (const side of ['bid', 'ask']) {
      const id = quotes[side];
      const state = id === undefined ? undefined : session.trader.orders.get(id)?.state;
      if (state !== undefined && !isTerminal(state)) continue; // still resting, or matched and settling
      if (id !== undefined) say('quote ended', { side, order_id: id, state, why });
      await quoteSide(side).catch((error) => say('quote failed', { side, error: error.message }));
    }
  });
  return busy;
}

// Fund the wallet: a few notes per side, each worth one quote at up to 10% above the reference.
const reference = await referencePrice(instrument);
const deposits = ['bid', 'ask'].flatMap((side) => {
  const cost = nominalCost(
    { side, amount: instrument.min_size, price: priceNear(reference, 1_000, instrument) },
    instrument,
  );
  return Array.from({ length: NOTES_PER_SIDE }, () => [spentMintOf(side, instrument), cost]);
});
await fund(session, ...deposits);
say('funded', { notes_per_side: NOTES_PER_SIDE });

session.stream.on('order', (event) => {
  if (event.order_id === quotes.bid || event.order_id === quotes.ask) refresh(event.kind);
});
session.stream.on('fill', (message) => {
  if (message.order_id === quotes.bid || message.order_id === quotes.ask)
    say('filled', { order_id: message.order_id });
});
session.stream.on('reconnecting', ({ attempt }) => say('reconnecting', { attempt }));
// After a reconnect the Trader's gap handler reconciles; re-quote once the records are in.
session.stream.on('gap', ({ reason }) => {
  if (reason === 'reconnect')
    session.trader.reconcile().then(
      () => refresh('reconnect'),
      () => refresh('reconnect'),
    );
});
await refresh('start');
say('running');

async function stop(signal) {
  stopping = true;
  await busy;
  for (const side of ['bid', 'ask']) {
    const id = quotes[side];
    const state = id === undefined ? undefined : session.trader.orders.get(id)?.state;
    if (state !== undefined && !isTerminal(state)) await session.trader.cancel(id).catch(() => {});
  }
  await session.close();
  say('stopped', { signal });
  process.exit(0);
}
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
