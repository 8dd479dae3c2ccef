// A one-shot taker: buys (or sells) one lot at a limit a little through the reference price, waits
// for its fill memo, prints what it got and exits. If nothing fills in time it cancels and exits 1.
//
//   node taker.mjs [bid|ask] [account]      (default: bid as alice; settings: see dev-venue.mjs)
import { nominalCost, spentMintOf } from '@venue/sdk';
import { fund, nextFill, openSession, priceNear, referencePrice, sleep } from './dev-venue.mjs';

const SYMBOL = 'SOL-USDC';
const WAIT_FOR_FILL_MS = Number(process.env.TAKER_WAIT_MS ?? 120_000);
const side = process.argv[2] ?? 'bid';
const account = process.argv[3] ?? 'alice';
if (side !== 'bid' && side !== 'ask') throw new Error('usage: node taker.mjs [bid|ask] [account]');

// No cancel on disconnect: this order rests on its own until it fills or the taker cancels it.
const session = await openSession(account, { cancelOnDisconnect: false });
let status = 0;
try {
  const instrument = session.instruments.get(SYMBOL);
  const reference = await referencePrice(instrument);
  // Two percent through the reference: crosses quotes near it, stays inside the 5% band.
  const order = {
    symbol: SYMBOL,
    side,
    amount: instrument.min_size,
    price: priceNear(reference, side === 'bid' ? 200 : -200, instrument),
  };
  await fund(session, [spentMintOf(side, instrument), nominalCost(order, instrument)]);
  const placed = await session.trader.place(order, session.stream);
  console.log(`taker: ${side} ${order.amount} at ${order.price} placed (order ${placed.order_id})`);

  const memo = await Promise.race([nextFill(session, placed.order_id), sleep(WAIT_FOR_FILL_MS)]);
  if (memo === undefined) {
    await session.trader.cancel(placed.order_id);
    console.log(`taker: no fill within ${WAIT_FOR_FILL_MS} ms; order cancelled`);
    status = 1;
  } else {
    console.log(
      JSON.stringify({
        taker: 'filled',
        order_id: placed.order_id,
        fill_quantity: String(memo.fill_quantity),
        clearing_price: String(memo.clearing_price),
        quote_amount: String(memo.quote_amount),
        received: String(memo.received.amount),
      }),
    );
  }
} finally {
  await session.close();
}
process.exit(status);
