// The `venue` trading and operator commands against a real venue over HTTPS (attested, pinned):
// keys are generated owner-only and only their public parts printed; place, orders, modify and
// cancel work end to end with table and --json output that agree with the venue's records; a venue
// refusal prints its code and message and exits 1; admin commands manage accounts and the drain;
// on a settling venue, watch, modify and cancel keep the wallet in step with fills.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type RpcServer, startRpcServer } from '@venue/chain-sim';
import { loadNoteHasher } from '@venue/notes';
import { TEST_CORE_CONFIG, TEST_ROOT, TestVenue, testMarket } from '@venue/testing';
import { type CliHome, type CliRun, cliHome } from './cli-home.ts';

const MARKET = testMarket('SOL-USDC');

let venue: TestVenue;
let home: CliHome;
let dir: string;

before(async () => {
  const hasher = await loadNoteHasher();
  // Poseidon note commitments, as the SDK's wallet makes them; stub proofs (this venue never settles).
  venue = await TestVenue.start({
    enclave: true,
    core: { ...TEST_CORE_CONFIG, noteCommitment: hasher.noteCommitment },
  });
  const accounts = {
    admin: await venue.server.provision('admin', 'cli admin'),
    alice: await venue.server.provision('trader', 'cli alice'),
    // Each CLI run logs in once and the venue meters logins per account (10, then one per 6 s):
    // the refusal checks use their own account so that the trading test keeps its allowance.
    bob: await venue.server.provision('trader', 'cli bob'),
  };
  home = cliHome(venue, accounts, 'venue-cli-test-');
  dir = home.dir;
});
after(async () => {
  await venue.stop();
  home.remove();
});

/** Runs `venue <args>` in-process with the test venue's global options; returns status and output. */
function venueCli(...args: string[]): Promise<CliRun> {
  return home.run(args);
}

async function json(...args: string[]): Promise<Record<string, unknown> & Array<Record<string, unknown>>> {
  const run = await venueCli('--json', ...args);
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

describe('venue CLI', () => {
  test('keys generate writes an owner-only key file and prints only public parts; show repeats them', async () => {
    const generated = await venueCli('keys', 'generate');
    assert.equal(generated.status, 0, generated.stderr);
    const file = join(dir, 'keys', 'key.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const secrets = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    const shown = await json('keys', 'show');
    assert.match(generated.stdout, new RegExp(`trading key +${shown['trading_key']}`));
    for (const name of ['trading_seed', 'spending_key', 'viewing_private_key', 'storage_key']) {
      assert.ok(!generated.stdout.includes(secrets[name] ?? '-'), `${name} must never be printed`);
      assert.ok(!JSON.stringify(shown).includes(secrets[name] ?? '-'));
    }
    assert.deepEqual(Object.keys(shown).sort(), [
      'key_file',
      'owner_commitment',
      'trading_key',
      'viewing_pubkey',
    ]);
    // A second generate must not destroy the keys that own the notes.
    const again = await venueCli('keys', 'generate');
    assert.equal(again.status, 1);
    assert.match(again.stderr, /already exists/);
  });

  test('place, orders, modify and cancel: tables and --json agree with the venue', async () => {
    const placeArgs = [
      'place',
      '--symbol',
      'SOL-USDC',
      '--side',
      'bid',
      '--amount',
      '100',
      '--price',
      '1000',
    ];
    const placed = await json(...placeArgs, '--stub-note', '--merkle-root', TEST_ROOT);
    assert.equal(placed['state'], 'resting');
    const id = String(placed['order_id']);
    const record = await json('orders', id);
    assert.equal(record.length, 1);
    assert.equal(record[0]?.['state'], 'resting');
    assert.equal(record[0]?.['price_limit'], '1000', 'u64 values are decimal strings in --json');
    const table = await venueCli('orders');
    assert.equal(table.status, 0, table.stderr);
    assert.match(table.stdout, new RegExp(`${id}.*SOL-USDC.*bid.*limit.*resting.*100.*1000`));

    const modified = await json('modify', id, '--price', '990');
    assert.equal(modified['order_id'], id);
    assert.equal((await json('orders', id))[0]?.['price_limit'], '990');

    const cancelled = await venueCli('cancel', id);
    assert.equal(cancelled.status, 0, cancelled.stderr);
    assert.equal(cancelled.stdout, `cancelled ${id}\n`);
    assert.equal((await json('orders', id))[0]?.['state'], 'cancelled');
    assert.equal((await venueCli('orders')).stdout, 'no open orders\n');
  });

  test('dead-man arm, status and disarm: text and --json agree with the venue; a bad timeout exits 1', async () => {
    const armed = await venueCli('--json', '--account', 'bob', 'dead-man', 'arm', '40');
    assert.equal(armed.status, 0, armed.stderr);
    const status = JSON.parse(armed.stdout);
    assert.equal(status.armed, true);
    assert.equal(BigInt(status.deadline_slot), BigInt(status.armed_slot) + 40n);
    const shown = await venueCli('--account', 'bob', 'dead-man', 'status');
    assert.match(shown.stdout, new RegExp(`cancelled at slot ${status.deadline_slot} unless refreshed`));
    const zero = await venueCli('--account', 'bob', 'dead-man', 'arm', '0');
    assert.equal(zero.status, 1);
    assert.match(zero.stderr, /error 1039 \(HTTP 400\)/);
    const off = await venueCli('--account', 'bob', 'dead-man', 'disarm');
    assert.equal(off.stdout.trim(), 'not armed');
  });

  test("a refusal prints the venue's code and message and exits 1, as text or as JSON", async () => {
    const missing = 'ab'.repeat(16);
    const text = await venueCli('--account', 'bob', 'orders', missing);
    assert.equal(text.status, 1);
    assert.match(text.stderr, /^venue: error 1300 \(HTTP 404\): .+ \(request .+\)\n$/);
    const asJson = await venueCli('--json', '--account', 'bob', 'orders', missing);
    assert.equal(asJson.status, 1);
    assert.equal(JSON.parse(asJson.stderr).error.code, 1300);
    const usage = await venueCli('place', '--symbol', 'SOL-USDC', '--side', 'up');
    assert.equal(usage.status, 2, 'a usage error is refused before anything is sent');
  });

  test('admin: create an account, disable, enable and revoke its tokens; drain and metrics', async () => {
    const created = await json('admin', 'accounts', 'create', '--label', 'desk 9');
    assert.equal(created['role'], 'trader');
    const apiKey = String(created['api_key']);
    assert.equal((await json('admin', 'accounts', 'disable', apiKey))['status'], 'suspended');
    assert.equal((await json('admin', 'accounts', 'enable', apiKey))['status'], 'active');
    assert.ok((await json('admin', 'accounts', 'revoke-tokens', apiKey))['tokens_invalid_before_ms']);
    const drain = await venueCli('admin', 'drain');
    assert.equal(drain.status, 0, drain.stderr);
    assert.match(drain.stdout, /^drain: open; trading open/);
    const metrics = await json('admin', 'metrics');
    assert.ok(Array.isArray(metrics['markets']));
    const refused = await venueCli('--account', 'bob', 'admin', 'drain');
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /error 11\d\d \(HTTP 403\)/);
  });
});

// On a venue that settles (stub proofs, which this fixture's proof mode allows), the CLI alone
// keeps a wallet right: `venue watch` hands the fill of a partially filled bid to the wallet (the
// received note is spendable, the change backs the rest), `venue modify` moves the rest onto that
// change note by itself with the open amount, and `venue cancel` frees it.
describe('venue CLI on a settling venue', () => {
  const FINALITY = 4;
  let settling: TestVenue;
  let rpc: RpcServer;
  let settlingHome: CliHome;

  before(async () => {
    const hasher = await loadNoteHasher();
    settling = await TestVenue.start({
      settlement: true,
      finalityDepth: FINALITY,
      core: { ...TEST_CORE_CONFIG, noteCommitment: hasher.noteCommitment },
    });
    settling.server.engine.record({ type: 'oracle_price', marketId: MARKET.marketId, price: 1000n });
    assert.ok(
      settling.chain !== undefined && settling.platform !== undefined && settling.enclave !== undefined,
    );
    rpc = await startRpcServer(settling.chain);
    const accounts = {
      alice: await settling.server.provision('trader', 'settling alice'),
      bob: await settling.server.provision('trader', 'settling bob'),
    };
    settlingHome = cliHome(settling, accounts, 'venue-cli-settling-');
  });
  after(async () => {
    await rpc.close();
    await settling.stop();
    settlingHome.remove();
  });

  /** `venue --account <who> <args>` with <who>'s own key file; stderr is passed to `onStderr` as it comes. */
  function as(who: string, args: string[], onStderr?: (text: string) => void): Promise<CliRun> {
    return settlingHome.run(['--account', who, ...args], {
      keyFile: join(settlingHome.dir, who, 'key.json'),
      ...(onStderr === undefined ? {} : { onStderr }),
    });
  }

  async function asJson(who: string, ...args: string[]) {
    const run = await as(who, ['--json', ...args]);
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout);
  }

  /** Spendable, reserved and pending of both mints from `venue balance` (no tree read). */
  async function balances(who: string): Promise<Record<string, string[]>> {
    const rows = (await asJson(who, 'balance', '--no-scan')) as Array<Record<string, string>>;
    const of = (mint: string) => {
      const row = rows.find((r) => r['mint'] === mint);
      return [row?.['spendable'] ?? '0', row?.['reserved'] ?? '0', row?.['pending'] ?? '0'];
    };
    return { base: of(MARKET.baseMint), quote: of(MARKET.quoteMint) };
  }

  test('watch applies a partial fill to the wallet; modify rests the rest on the change note; cancel frees it', async () => {
    for (const who of ['alice', 'bob']) assert.equal((await as(who, ['keys', 'generate'])).status, 0);
    const chainRpc = ['--chain-rpc', rpc.url];
    await asJson('alice', 'deposit', '--mint', MARKET.quoteMint, '--amount', '1000', ...chainRpc);
    await asJson('bob', 'deposit', '--mint', MARKET.baseMint, '--amount', '10', ...chainRpc);
    settling.advanceSlots(1); // the deposits' root reaches the venue
    for (const who of ['alice', 'bob']) assert.equal((await as(who, ['balance'])).status, 0);

    // alice watches: pending_settlement, partially_filled and the fill memo.
    let watching: () => void = () => {};
    const subscribed = new Promise<void>((resolve) => {
      watching = resolve;
    });
    const watch = as('alice', ['watch', '--count', '3'], (text) => {
      if (text.includes('watching')) watching();
    });
    await subscribed;
    const bid = await asJson(
      'alice',
      'place',
      '--symbol',
      'SOL-USDC',
      '--side',
      'bid',
      '--amount',
      '10',
      '--price',
      '1000',
    );
    await asJson('bob', 'place', '--symbol', 'SOL-USDC', '--side', 'ask', '--amount', '4', '--price', '1000');
    settling.advanceSlots(1 + FINALITY);
    const watched = await watch;
    assert.equal(watched.status, 0, watched.stderr);
    assert.match(watched.stdout, /partially_filled filled 4/);
    assert.doesNotMatch(watched.stderr, /wallet/, 'every message applied to the wallet');
    // 4 base bought at 1000 for 4 quote: the received note is spendable, the change backs the rest.
    assert.deepEqual(await balances('alice'), { base: ['4', '0', '0'], quote: ['0', '996', '0'] });

    const id = String(bid['order_id']);
    const notes = (await asJson('alice', 'balance', '--no-scan', '--notes')) as Array<Record<string, string>>;
    const change = notes.find((n) => n['status'] === 'reserved');
    assert.ok(change !== undefined && change['commitment'] !== bid['note_commitment']);
    const modified = await asJson('alice', 'modify', id, '--price', '990');
    assert.equal(modified['order_id'], id);
    const [record] = (await asJson('alice', 'orders', id)) as Array<Record<string, string>>;
    assert.equal(record?.['note_commitment'], change['commitment'], 'the replacement names the change note');
    assert.equal(record?.['remaining_amount'], '6', 'the open amount stays what was open');
    assert.equal(record?.['price_limit'], '990');

    assert.equal((await as('alice', ['cancel', id])).status, 0);
    assert.deepEqual(await balances('alice'), { base: ['4', '0', '0'], quote: ['996', '0', '0'] });
  });
});
