// Your first trade, end to end, on the development venue (`npm start` in the venue's checkout):
// two traders attest the venue and log in, each deposits a note on the chain, alice bids for two
// lots of SOL-USDC and bob sells one, alice reads her fill memo, then cancels the rest of her bid.
//
//   npm install @venue/sdk @venue/notes
//   node first-trade.mjs            (settings: see dev-venue.mjs)
//
// Plain JavaScript: it runs with `node` as it is. Amounts are integers in the mints' base units
// (bigint), prices are quote units per base unit times the instrument's price_scale.
import { nominalCost } from '@venue/sdk';
import { fund, nextFill, openSession, priceNear, referencePrice } from './dev-venue.mjs';

const alice = await openSession('alice');
const bob = await openSession('bob');
try {
  const sol = alice.instruments.get('SOL-USDC');
  console.log(`attested ${alice.venue.report.measurement.slice(0, 16)}…, logged in as alice and bob`);

  // Limits close to the oracle: inside the auction's band (5% on the dev markets), on the tick.
  const reference = await referencePrice(sol);
  const bid = {
    symbol: 'SOL-USDC',
    side: 'bid',
    amount: 2n * sol.min_size,
    price: priceNear(reference, 200, sol),
  };
  const ask = {
    symbol: 'SOL-USDC',
    side: 'ask',
    amount: sol.min_size,
    price: priceNear(reference, -200, sol),
  };

  // A bid spends quote tokens (its nominal cost), an ask spends the base tokens it sells.
  await Promise.all([
    fund(alice, [sol.quote_mint, nominalCost(bid, sol)]),
    fund(bob, [sol.base_mint, ask.amount]),
  ]);
  console.log(
    `deposited: alice ${nominalCost(bid, sol)} ${sol.quote_mint}, bob ${ask.amount} ${sol.base_mint}`,
  );

  // Each place claims the wallet's smallest note that covers the order and proves it (VALID_INPUT).
  const placedBid = await alice.trader.place(bid, alice.stream);
  const filled = nextFill(alice, placedBid.order_id);
  await bob.trader.place(ask, bob.stream);
  console.log(
    `alice bids ${bid.amount} at ${bid.price} (order ${placedBid.order_id}); bob asks ${ask.amount} at ${ask.price}`,
  );

  // The memo comes once the batch is final on the chain; only alice's viewing key opens it.
  const memo = await filled;
  console.log(
    `fill: ${memo.fill_quantity} at ${memo.clearing_price}, paid ${memo.quote_amount}, received a note of ${memo.received.amount}`,
  );

  const cancelled = await alice.trader.cancel(placedBid.order_id);
  console.log(`cancelled the rest: ${cancelled.status}`);
  console.log(
    JSON.stringify({
      example: 'first-trade',
      fill_quantity: String(memo.fill_quantity),
      cancel: cancelled.status,
    }),
  );
} finally {
  await alice.close();
  await bob.close();
}
