import { SettlementWorld } from '../packages/adapters/test/settlement-world.ts';

const pairs = Number(process.argv[2] ?? 1024);
const world = await SettlementWorld.create({ finalityDepth: 4, lockDurationSlots: 600n });
const orders = [];
for (let i = 0; i < pairs; i += 1) {
  const buyer = world.wallet(`b-${i}`);
  const seller = world.wallet(`s-${i}`);
  orders.push({
    buyer,
    seller,
    quote: world.deposit(buyer, 'quote', 15n),
    base: world.deposit(seller, 'base', 10n),
  });
}
world.advance(1);
let t = performance.now();
for (const { buyer, seller, quote, base } of orders) {
  await world.place(buyer, world.order(buyer, quote, 'bid', 10n));
  await world.place(seller, world.order(seller, base, 'ask', 10n));
}
console.error('booked', (performance.now() - t).toFixed(0), 'ms');
for (let s = 0; s < 12; s++) {
  t = performance.now();
  world.advance(1);
  console.error(
    'slot',
    s,
    (performance.now() - t).toFixed(1),
    'ms pending',
    world.engine.core.pendingMatches().length,
  );
}
await world.close();
