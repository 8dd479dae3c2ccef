/**
 * `npm run bench -- settlement`: the settlement pipeline against the in-process chain simulator.
 * Each run books `pairs` crossing bid/ask pairs (real Poseidon notes, verified-command intake), then
 * drives slots until every match is final and reported to the core.
 * - matches settled per second, from the first slot to the last outcome; baseline: the same run's
 *   time inside the chain's own lock and settlement calls (the chain applying the pipeline's
 *   batches directly), so the ratio is the share the chain leaves to the pipeline's own work;
 * - match-to-final latency in slots (telemetry p50); baseline: the chain's finality depth, the
 *   least any settlement can take;
 * - the same pairs settled over the chain's JSON-RPC (docs/settlement.md section 9: per-beat view,
 *   queued writes, a fixed number of refresh rounds per slot); baseline: the in-process rate of
 *   the same run, so the ratio is what the remote port keeps of it.
 */
import { MARKET, SettlementWorld } from '../packages/adapters/test/settlement-world.ts';
import { type Figure, figure, summarise } from './harness.ts';

const FINALITY = 8;

async function runOnce(pairs: number): Promise<{
  matchesPerSecond: number;
  chainMatchesPerSecond: number;
  slots: number;
  rpcMatchesPerSecond: number;
}> {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY, lockDurationSlots: 200n });
  const rpcWorld = await SettlementWorld.create({
    finalityDepth: FINALITY,
    lockDurationSlots: 200n,
    rpc: true,
  });
  try {
    const inProcess = await settleInProcess(world, pairs);
    return { ...inProcess, rpcMatchesPerSecond: await settleOverRpc(rpcWorld, pairs) };
  } finally {
    await rpcWorld.close();
  }
}

/** Books `pairs` crossing pairs in `world`, each buyer and seller with a note of their own. */
async function book(world: SettlementWorld, pairs: number): Promise<void> {
  const orders = [];
  for (let i = 0; i < pairs; i += 1) {
    const buyer = world.wallet(`buyer-${i}`);
    const seller = world.wallet(`seller-${i}`);
    orders.push({
      buyer,
      seller,
      quote: world.deposit(buyer, 'quote', 15n),
      base: world.deposit(seller, 'base', 10n),
    });
  }
  world.advance(1);
  for (const { buyer, seller, quote, base } of orders) {
    await world.place(buyer, world.order(buyer, quote, 'bid', 10n));
    await world.place(seller, world.order(seller, base, 'ask', 10n));
  }
}

async function settleOverRpc(world: SettlementWorld, pairs: number): Promise<number> {
  await book(world, pairs);
  const start = process.hrtime.bigint();
  let slots = 0;
  while (world.engine.core.pendingMatches().length > 0 || slots === 0) {
    await world.beat(1);
    slots += 1;
    if (slots > 10_000) throw new Error('settlement over RPC did not finish');
  }
  if (world.metrics.market(MARKET.marketId).batches_confirmed === 0) throw new Error('nothing settled');
  return (2 * pairs) / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function settleInProcess(
  world: SettlementWorld,
  pairs: number,
): Promise<{ matchesPerSecond: number; chainMatchesPerSecond: number; slots: number }> {
  let chainNs = 0n;
  const chain = world.chain as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ['lockNotes', 'submitSettlement'] as const) {
    const original = chain[name]?.bind(world.chain);
    chain[name] = (...args: unknown[]) => {
      const start = process.hrtime.bigint();
      try {
        return original?.(...args);
      } finally {
        chainNs += process.hrtime.bigint() - start;
      }
    };
  }
  await book(world, pairs);
  const start = process.hrtime.bigint();
  let slots = 0;
  while (world.engine.core.pendingMatches().length > 0 || slots === 0) {
    world.advance(1);
    slots += 1;
    if (slots > 10_000) throw new Error('settlement did not finish');
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const matches = 2 * pairs;
  if (world.metrics.market(MARKET.marketId).batches_confirmed === 0) throw new Error('nothing settled');
  return {
    matchesPerSecond: matches / seconds,
    chainMatchesPerSecond: matches / (Number(chainNs) / 1e9),
    slots: Number(world.metrics.market(MARKET.marketId).match_to_final_slots_p50 ?? 0n),
  };
}

export async function run(quick: boolean): Promise<Figure[]> {
  const pairs = quick ? 64 : 256;
  const runs = quick ? 3 : 5;
  const results = [];
  for (let i = 0; i < runs; i += 1) {
    results.push(await runOnce(pairs));
    process.stderr.write(`settlement: run ${i + 1}/${runs} done\n`);
  }
  const rate = summarise(results.map((r) => r.matchesPerSecond));
  const chainRate = summarise(results.map((r) => r.chainMatchesPerSecond));
  const latency = summarise(results.map((r) => r.slots));
  const rpcRate = summarise(results.map((r) => r.rpcMatchesPerSecond));
  return [
    figure('settlement', `matches_settled_${pairs}_pairs`, 'matches/s', 'higher', rate, {
      name: 'chain-sim lock+settle of the same batches',
      value: Math.round(chainRate.median),
    }),
    figure('settlement', 'match_to_final_p50', 'slots', 'lower', latency, {
      name: `finality depth ${FINALITY}`,
      value: FINALITY,
    }),
    figure('settlement', `matches_settled_over_rpc_${pairs}_pairs`, 'matches/s', 'higher', rpcRate, {
      name: 'in-process pipeline, same run',
      value: Math.round(rate.median),
    }),
  ];
}
