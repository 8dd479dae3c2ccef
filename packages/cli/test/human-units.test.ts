// The CLI for people, over the wire against a settling venue and its chain simulator's JSON-RPC:
// with --human, `venue markets` shows tick and minimum size in tokens (decimals read from the
// chain's mint metadata), deposit and place take token amounts and prices and send the exact raw
// integers, text needing rounding is refused before anything is sent, and raw units stay the
// default. A wallet made on one chain, opened after the chain restarted from genesis, is stopped
// with what to do instead of failing later with 1305.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createChainSimulator, type RpcServer, startRpcServer } from '@venue/chain-sim';
import { loadNoteHasher } from '@venue/notes';
import { TEST_CORE_CONFIG, TestVenue, testMarket } from '@venue/testing';
import { type CliHome, type CliRun, cliHome } from './cli-home.ts';

const MARKET = testMarket('SOL-USDC'); // tick 10, min size 1, price scale 1000
// Base with 1 decimal, quote with 2: one quote token per base token is 1000 * 10^2 / 10^1 = 10^4 raw.
const BASE = { mint: MARKET.baseMint, symbol: 'BT', decimals: 1 };
const QUOTE = { mint: MARKET.quoteMint, symbol: 'QT', decimals: 2 };

let venue: TestVenue;
let rpc: RpcServer;
let home: CliHome;

before(async () => {
  const hasher = await loadNoteHasher();
  venue = await TestVenue.start({
    settlement: true,
    finalityDepth: 4,
    core: { ...TEST_CORE_CONFIG, noteCommitment: hasher.noteCommitment },
  });
  venue.server.engine.record({ type: 'oracle_price', marketId: MARKET.marketId, price: 1000n });
  assert.ok(venue.chain !== undefined);
  venue.chain.createMint(BASE);
  venue.chain.createMint(QUOTE);
  rpc = await startRpcServer(venue.chain);
  const accounts = {
    alice: await venue.server.provision('trader', 'human alice'),
    bob: await venue.server.provision('trader', 'human bob'),
    carol: await venue.server.provision('trader', 'human carol'),
  };
  home = cliHome(venue, accounts, 'venue-cli-human-');
});
after(async () => {
  await rpc.close();
  await venue.stop();
  home.remove();
});

function as(
  who: string,
  args: string[],
  walletDir?: string,
  onStderr?: (text: string) => void,
): Promise<CliRun> {
  return home.run(
    ['--account', who, ...(walletDir === undefined ? [] : ['--wallet-dir', walletDir]), ...args],
    { keyFile: join(home.dir, who, 'key.json'), ...(onStderr === undefined ? {} : { onStderr }) },
  );
}

async function asJson(who: string, ...args: string[]) {
  const run = await as(who, ['--json', ...args]);
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

describe('venue CLI in human units', () => {
  test('markets --human shows tick and minimum size in tokens; without it the raw integers', async () => {
    const raw = await as('alice', ['markets']);
    assert.equal(raw.status, 0, raw.stderr);
    assert.match(raw.stdout, /tick_size/);
    assert.doesNotMatch(raw.stdout, /decimals/);

    const human = await as('alice', ['--human', 'markets', '--chain-rpc', rpc.url]);
    assert.equal(human.status, 0, human.stderr);
    assert.match(human.stdout, /BT \(1 decimals\)/);
    assert.match(human.stdout, /QT \(2 decimals\)/);
    assert.match(human.stdout, /0\.001 QT/, 'tick 10 raw is 0.001 QT per BT');
    assert.match(human.stdout, /0\.1 BT/, 'min size 1 raw is 0.1 BT');

    const rows = (await asJson('alice', '--human', 'markets', '--chain-rpc', rpc.url)) as Array<
      Record<string, unknown>
    >;
    const row = rows.find((r) => r['symbol'] === 'SOL-USDC') ?? {};
    assert.equal(row['tick_size'], '10', 'the raw fields stay as the venue gave them');
    assert.deepEqual(
      [row['base_decimals'], row['quote_decimals'], row['tick'], row['min_amount']],
      [1, 2, '0.001', '0.1'],
    );
    // A market whose mints the chain does not describe is still listed, in raw units.
    assert.equal(rows.find((r) => r['symbol'] === 'ETH-USDC')?.['tick'], null);

    const noChain = await as('alice', ['--human', 'markets', '--chain-rpc', 'http://127.0.0.1:9/']);
    assert.equal(noChain.status, 1);
    assert.match(noChain.stderr, /--human needs the mints' decimals from the chain/);
  });

  test('deposit and place take tokens and send the exact raw integers; too many decimals are refused', async () => {
    assert.equal((await as('alice', ['keys', 'generate'])).status, 0);
    const chainRpc = ['--chain-rpc', rpc.url];
    await asJson('alice', '--human', 'deposit', '--mint', QUOTE.mint, '--amount', '12.5', ...chainRpc);
    venue.advanceSlots(1);
    const balances = (await asJson('alice', 'balance')) as Array<Record<string, string>>;
    assert.equal(balances.find((b) => b['mint'] === QUOTE.mint)?.['spendable'], '1250');
    const shown = await as('alice', ['--human', 'balance', '--no-scan', ...chainRpc]);
    assert.match(shown.stdout, /12\.5 QT/);

    // 1 BT at 0.1 QT per BT: amount 10 raw, price 1000 raw.
    const placeArgs = ['place', '--symbol', 'SOL-USDC', '--side', 'bid', ...chainRpc];
    const placed = await asJson('alice', '--human', ...placeArgs, '--amount', '1', '--price', '0.1');
    const [record] = (await asJson('alice', 'orders', String(placed.order_id))) as Array<
      Record<string, string>
    >;
    assert.equal(record?.['amount'], '10');
    assert.equal(record?.['price_limit'], '1000');
    const table = await as('alice', ['--human', 'orders', ...chainRpc]);
    assert.match(table.stdout, /1 BT/);
    assert.match(table.stdout, /0\.1 QT/);

    const tooFine = await as('alice', ['--human', ...placeArgs, '--amount', '1', '--price', '0.10001']);
    assert.equal(tooFine.status, 1);
    assert.match(tooFine.stderr, /--price \(QT per BT\): too many decimals in 0\.10001; at most 4/);
    const rawDecimal = await as('alice', [...placeArgs, '--amount', '1.5', '--price', '1000']);
    assert.equal(rawDecimal.status, 1);
    assert.match(rawDecimal.stderr, /add --human/);
    const open = (await asJson('alice', 'orders')) as unknown[];
    assert.equal(open.length, 1, 'the refused orders were never sent');

    const modified = await as('alice', [
      '--human',
      'modify',
      String(placed.order_id),
      '--price',
      '0.099',
      ...chainRpc,
    ]);
    assert.equal(modified.status, 0, modified.stderr);
    assert.match(modified.stdout, /at 0\.099 QT/);
    assert.equal(
      ((await asJson('alice', 'orders', String(placed.order_id))) as Array<Record<string, string>>)[0]?.[
        'price_limit'
      ],
      '990',
    );

    // bob sells 0.4 BT into the bid; alice's watch --human prints the fill in tokens.
    assert.equal((await as('bob', ['keys', 'generate'])).status, 0);
    await asJson('bob', '--human', 'deposit', '--mint', BASE.mint, '--amount', '0.4', ...chainRpc);
    venue.advanceSlots(1);
    assert.equal((await as('bob', ['balance'])).status, 0);
    let watching: () => void = () => {};
    const subscribed = new Promise<void>((resolve) => {
      watching = resolve;
    });
    const watch = as('alice', ['--human', 'watch', '--count', '3', ...chainRpc], undefined, (text) => {
      if (text.includes('watching')) watching();
    });
    await subscribed;
    const sell = ['place', '--symbol', 'SOL-USDC', '--side', 'ask', '--amount', '0.4', '--price', '0.099'];
    await asJson('bob', '--human', ...sell, ...chainRpc);
    venue.advanceSlots(5);
    const watched = await watch;
    assert.equal(watched.status, 0, watched.stderr);
    // 4 raw at 990 raw: quote floor(4 x 990 / 1000) = 3 raw = 0.03 QT.
    assert.match(watched.stdout, /amount 0\.4 BT at 0\.099 QT \(quote 0\.03 QT\)/);
    assert.equal((await as('alice', ['cancel', '--all'])).status, 0);
  });

  test('a wallet opened after its chain restarted from genesis says so and what to do', async () => {
    assert.equal((await as('carol', ['keys', 'generate'])).status, 0);
    await asJson('carol', 'deposit', '--mint', BASE.mint, '--amount', '10', '--chain-rpc', rpc.url);
    assert.equal((await as('carol', ['balance', '--no-scan'])).status, 0, 'the same chain: no complaint');

    // The dev chain restarts: a fresh chain from genesis answers at the same address.
    const port = rpc.port;
    await rpc.close();
    rpc = await startRpcServer(await createChainSimulator({ matchProofs: 'stand-in' }), { port });
    for (const args of [
      ['balance', '--no-scan'],
      ['place', '--symbol', 'SOL-USDC', '--side', 'ask', '--amount', '10', '--price', '1000'],
    ]) {
      const run = await as('carol', args);
      assert.equal(run.status, 1, args.join(' '));
      assert.match(run.stderr, /the chain at http:\/\/127\.0\.0\.1:\d+\/? was reset/);
      assert.match(run.stderr, /Start a fresh wallet \(pass --wallet-dir/);
      assert.doesNotMatch(run.stderr, /1305/);
    }
    // A fresh wallet folder works against the new chain and records it.
    const fresh = join(home.dir, 'carol-fresh');
    const deposit = await as(
      'carol',
      ['deposit', '--mint', BASE.mint, '--amount', '10', '--chain-rpc', rpc.url],
      fresh,
    );
    assert.equal(deposit.status, 0, deposit.stderr);
    assert.equal((await as('carol', ['balance', '--no-scan'], fresh)).status, 0);
  });
});
