// The operator commands that let `venue serve` run from the docs alone: `venue oracle keygen` and
// `publish` (signed updates a served venue accepts, one per chain slot, from stdin or a recording),
// `venue chain setup` (what serve checks on the chain, from serve's own config, idempotent) and
// `venue chain govern` (the governance action naming a served venue). Each refuses bad input
// before it starts anything, saying what to fix. docs/operations.md's walkthrough runs them all as
// processes (scripts/test/operations-run.test.ts); here they run in process against a chain
// simulator with a manual clock, so that every slot is the test's to advance.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { type ChainSimulator, createChainSimulator, type RpcServer, startRpcServer } from '@venue/chain-sim';
import { generateTradingKey, type OracleUpdate, verifyOracleUpdate } from '@venue/protocol';
import { loadSigningKeyFile } from '../src/commands/signing-key-file.ts';
import { runCli } from '../src/index.ts';
import { type OraclePublisher, startOraclePublisher } from '../src/oracle/oracle-publisher.ts';
import { lineSource, urlSource } from '../src/oracle/price-sources.ts';

const ROOT = join(import.meta.dirname, '../../..');
const FEED = 'DevSoLUsdcFeed11111111111111111111111111111';

let dir: string;
let chain: ChainSimulator;
let rpc: RpcServer;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'venue-operator-'));
  chain = await createChainSimulator({ clock: 'manual', matchProofs: 'stand-in', finalityDepth: 2 });
  rpc = await startRpcServer(chain, { port: 0 });
});

after(async () => {
  await rpc?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function venue(args: readonly string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    interactive: false,
  });
  return { status, stdout, stderr };
}

/** Polls (bounded) until `read` gives a value `done` accepts: the publisher works on its own timer. */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i += 1) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`${what} never happened`);
}

async function newestUpdate(url: string): Promise<OracleUpdate | null> {
  const response = await fetch(url);
  if (response.status === 503) return null;
  const json = (await response.json()) as Record<string, string>;
  return {
    feed: json['feed'] ?? '',
    price: BigInt(json['price'] ?? 0),
    confidence: BigInt(json['confidence'] ?? 0),
    publish_slot: BigInt(json['publish_slot'] ?? 0),
    sequence: BigInt(json['sequence'] ?? 0),
    signature: json['signature'] ?? '',
  };
}

describe('venue oracle', () => {
  test('keygen writes an owner-only key file, prints its public key, and never replaces a file', async () => {
    const file = join(dir, 'keys', 'oracle.json');
    const made = await venue(['oracle', 'keygen', '--out', file]);
    assert.equal(made.status, 0, made.stderr);
    const key = await loadSigningKeyFile(file, 'oracle-publisher', '--publisher-key-file');
    assert.equal(made.stdout.trim(), key.publicKey);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(!readFileSync(file, 'utf8').includes('private'), 'a seed, not a PEM block');
    const again = await venue(['oracle', 'keygen', '--out', file]);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /already exists; refusing to overwrite it/);
    assert.equal((await loadSigningKeyFile(file, 'oracle-publisher', '--x')).publicKey, key.publicKey);
  });

  test('publish refuses bad input before it listens, naming the option and what to fix', async () => {
    const key = join(dir, 'publish-key.json');
    await venue(['oracle', 'keygen', '--out', key]);
    const base = ['oracle', 'publish', '--feed', FEED, '--publisher-key-file', key, '--chain-rpc', rpc.url];
    const cases: [string[], number, RegExp][] = [
      [base, 1, /choose exactly one price source: --source-url URL, --stdin or --replay FILE \(received 0\)/],
      [
        [...base, '--stdin', '--replay', 'x.csv', '--symbol', 'SOL-USDC'],
        1,
        /exactly one price source.*received 2/,
      ],
      [[...base, '--replay', 'x.csv'], 1, /--replay and --symbol go together/],
      [[...base, '--stdin', '--port', '70000'], 2, /--port.*expected a whole number from 0 to 65535/],
      [[...base, '--stdin', '--slot-lag', '-1'], 2, /--slot-lag/],
      [[...base.slice(0, 3), 'not-base58-0OIl', ...base.slice(4)], 2, /--feed.*expected a base58 address/],
      [[...base, '--source-url', 'ftp://prices'], 2, /--source-url.*expected a http: or https: URL/],
      [
        [...base, '--replay', join(dir, 'missing.csv'), '--symbol', 'SOL-USDC'],
        1,
        /--replay .*missing\.csv: no such file/,
      ],
    ];
    for (const [args, status, message] of cases) {
      const run = await venue(args);
      assert.equal(run.status, status, `${args.join(' ')}:\n${run.stderr}`);
      assert.match(run.stderr, message);
    }
    // A series that names the symbol nowhere, and a key file others can read.
    const series = join(dir, 'eth.csv');
    writeFileSync(series, 'step,symbol,price,confidence\n0,ETH-USDC,3000000,\n');
    const noRows = await venue([...base, '--replay', series, '--symbol', 'SOL-USDC']);
    assert.equal(noRows.status, 1);
    assert.match(noRows.stderr, /no row for SOL-USDC/);
    chmodSync(key, 0o644);
    const open = await venue([...base, '--stdin']);
    assert.equal(open.status, 1);
    assert.match(
      open.stderr,
      /--publisher-key-file .*readable or writable by others \(mode 644\); run chmod 600/,
    );
  });

  test('a key of the other role is refused', async () => {
    const authority = join(dir, 'not-a-publisher.json');
    const { createSigningKeyFile } = await import('../src/commands/signing-key-file.ts');
    await createSigningKeyFile(authority, 'chain-authority');
    const run = await venue([
      'oracle',
      'publish',
      '--feed',
      FEED,
      '--publisher-key-file',
      authority,
      '--stdin',
    ]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /holds the chain-authority key; this option takes the oracle-publisher key/);
  });

  test('publish relays stdin lines as updates signed by the feed key, one per chain slot, behind the chain', async () => {
    const key = generateTradingKey();
    const input = new PassThrough();
    const problems: string[] = [];
    chain.advance(10);
    const publisher: OraclePublisher = await startOraclePublisher({
      feed: FEED,
      key,
      chainRpc: rpc.url,
      source: lineSource(
        input,
        (line) => problems.push(line),
        () => {},
      ),
      pollMs: 20,
      slotLag: 2n,
      host: '127.0.0.1',
      port: 0,
      report: (line) => problems.push(line),
    });
    try {
      const start = chain.slotInfo().slot;
      await until(
        'the publisher reading the slot',
        async () => publisher.seenSlot(),
        (slot) => slot >= start,
      );
      assert.equal(await newestUpdate(publisher.url), null, 'nothing signed before a price arrives');
      input.write('150000 75\n');
      // The line is taken at the next slot the publisher sees after reading it.
      const first = await until(
        'the first update',
        async () => {
          chain.advance(1);
          return newestUpdate(publisher.url);
        },
        (u) => u !== null,
      );
      assert.ok(first !== null);
      assert.equal(first.price, 150_000n);
      assert.equal(first.confidence, 75n);
      assert.ok(verifyOracleUpdate(first, key.publicKey), 'signed by the publisher key');
      assert.ok(!verifyOracleUpdate(first, generateTradingKey().publicKey));
      assert.equal(first.publish_slot, first.sequence - 2n, 'stamped --slot-lag slots behind the chain');
      assert.ok(first.sequence <= chain.slotInfo().slot);

      // A bad line is reported by number and skipped; the next good one is published at a later
      // slot, with a higher sequence, so the venue's monitor takes it as new.
      input.write('a lot\n150100\n');
      const second = await until(
        'the second update',
        async () => {
          chain.advance(1);
          return newestUpdate(publisher.url);
        },
        (u) => u !== null && u.price === 150_100n,
      );
      assert.ok(second !== null && second.sequence > first.sequence);
      assert.equal(second.confidence, 150_100n / 2_000n, 'no confidence given: price / 2000');
      assert.ok(
        problems.some((p) => /stdin line 2: price: expected a whole number/.test(p)),
        problems.join('\n'),
      );

      // No new line: later slots sign nothing, so the feed goes stale at the venue, honestly.
      chain.advance(5);
      await until(
        'the publisher seeing the new slot',
        async () => chain.slotInfo().slot,
        () => true,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(await newestUpdate(publisher.url), second);
      assert.equal(publisher.published(), 2);
      const wrongPath = await fetch(publisher.url.replace(FEED, 'OtherFeed'));
      assert.equal(wrongPath.status, 404);
    } finally {
      await publisher.stop();
    }
  });
});

describe('venue oracle publish --source-url', () => {
  test('relays a JSON price service, and a failing service is reported once and signs nothing', async () => {
    let answer: { status: number; body: string } = {
      status: 200,
      body: '{"price": "150200", "confidence": 60}',
    };
    const service = createServer((_request, response) => {
      response.statusCode = answer.status;
      response.end(answer.body);
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    const { port } = service.address() as AddressInfo;
    const key = generateTradingKey();
    const problems: string[] = [];
    const publisher = await startOraclePublisher({
      feed: FEED,
      key,
      chainRpc: rpc.url,
      source: urlSource(`http://127.0.0.1:${port}/price`, 2_000),
      pollMs: 20,
      slotLag: 1n,
      host: '127.0.0.1',
      port: 0,
      report: (line) => problems.push(line),
    });
    try {
      const relayed = await until(
        'a relayed update',
        async () => {
          chain.advance(1);
          return newestUpdate(publisher.url);
        },
        (u) => u !== null,
      );
      assert.ok(relayed !== null && verifyOracleUpdate(relayed, key.publicKey));
      assert.equal(relayed.price, 150_200n);
      assert.equal(relayed.confidence, 60n);
      answer = { status: 200, body: '{"price": -5}' };
      const count = publisher.published();
      for (let i = 0; i < 3; i += 1) {
        chain.advance(1);
        const slot = chain.slotInfo().slot;
        await until(
          'the publisher at the slot',
          async () => publisher.seenSlot(),
          (seen) => seen >= slot,
        );
      }
      await until(
        'the problem reported',
        async () => problems.length,
        (n) => n > 0,
      );
      assert.equal(publisher.published(), count, 'nothing signed from a bad answer');
      assert.deepEqual(
        problems.filter((p) => p.includes('price: expected a whole number')).length,
        1,
        `reported once, not per slot:\n${problems.join('\n')}`,
      );
      answer = { status: 200, body: '{"price": 150300}' };
      const back = await until(
        'updates again',
        async () => {
          chain.advance(1);
          return newestUpdate(publisher.url);
        },
        (u) => u !== null && u.price === 150_300n,
      );
      assert.ok(back !== null && back.sequence > relayed.sequence);
      assert.ok(problems.some((p) => p.endsWith('publishing again')));
    } finally {
      await publisher.stop();
      service.close();
    }
  });
});

describe('venue chain setup and govern', () => {
  let publisher: OraclePublisher;
  let publisherKey: string;
  let configFile: string;
  const example = JSON.parse(readFileSync(join(ROOT, 'config/venue.example.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const market = (example['markets'] as Record<string, unknown>[])[0] ?? {};
  const configWith = (overrides: Record<string, unknown>) => {
    writeFileSync(
      configFile,
      JSON.stringify({
        ...example,
        chain: { rpc_url: rpc.url },
        oracle: { feeds: [{ feed: FEED, publisher_key: publisherKey, url: publisher.url }] },
        ...overrides,
      }),
    );
    return configFile;
  };

  before(async () => {
    configFile = join(dir, 'venue.json');
    const key = generateTradingKey();
    publisherKey = key.publicKey;
    const input = new PassThrough();
    publisher = await startOraclePublisher({
      feed: FEED,
      key,
      chainRpc: rpc.url,
      source: lineSource(
        input,
        () => {},
        () => {},
      ),
      pollMs: 20,
      slotLag: 0n,
      host: '127.0.0.1',
      port: 0,
      report: () => {},
    });
    input.write('151000 80\n');
    chain.advance(1);
    await until(
      'a signed update',
      () => newestUpdate(publisher.url),
      (u) => u !== null,
    );
  });
  after(async () => {
    await publisher?.stop();
  });

  test('setup refuses a config it cannot satisfy, naming the key or option, and creates nothing', async () => {
    const file = configWith({});
    const noDecimals = await venue(['chain', 'setup', '--config', file, '--mint', 'SOL=9']);
    assert.equal(noDecimals.status, 1);
    assert.match(
      noDecimals.stderr,
      /--mint: no decimals for USDC \(the quote of SOL-USDC\); add --mint USDC=DECIMALS/,
    );
    const badMint = await venue(['chain', 'setup', '--config', file, '--mint', 'USDC']);
    assert.equal(badMint.status, 2);
    assert.match(badMint.stderr, /--mint.*expected SYMBOL=DECIMALS/);
    const wrongKey = await venue([
      'chain',
      'setup',
      '--config',
      configWith({
        oracle: {
          feeds: [{ feed: FEED, publisher_key: generateTradingKey().publicKey, url: publisher.url }],
        },
      }),
      '--mint',
      'SOL=9',
      '--mint',
      'USDC=6',
    ]);
    assert.equal(wrongKey.status, 1);
    assert.match(
      wrongKey.stderr,
      /oracle\.feeds\[0\]\.publisher_key: the publisher at .* signs with another key/,
    );
    const badConfig = await venue(['chain', 'setup', '--config', configWith({ proofs: 'fast' })]);
    assert.equal(badConfig.status, 1);
    assert.match(badConfig.stderr, /proofs: expected one of groth16, stub/);
    assert.equal(chain.markets().length, 0, 'no market account was created');
    assert.equal(chain.mints().length, 0, 'and no mint described');
  });

  test('setup creates the mints, oracle and market serve checks; a second run changes nothing; a different market is refused', async () => {
    const file = configWith({});
    const first = await venue([
      '--json',
      'chain',
      'setup',
      '--config',
      file,
      '--mint',
      'SOL=9',
      '--mint',
      'USDC=6',
    ]);
    assert.equal(first.status, 0, first.stderr);
    const report = JSON.parse(first.stdout) as {
      mints: { symbol: string; created: boolean }[];
      markets: { created: boolean }[];
    };
    assert.deepEqual(
      report.mints.map((m) => [m.symbol, m.created]),
      [
        ['SOL', true],
        ['USDC', true],
      ],
    );
    const onChain = chain.market(String(market['market_id']));
    assert.equal(onChain.tick_size, BigInt(Number(market['tick_size'])));
    assert.equal(onChain.oracle, FEED);
    assert.equal(chain.oracle(FEED).price, 151_000n, "the publisher's signed price");
    assert.deepEqual(
      chain.mints().map((m) => [m.symbol, m.decimals]),
      [
        ['SOL', 9],
        ['USDC', 6],
      ],
    );

    const again = await venue(['--json', 'chain', 'setup', '--config', file]);
    assert.equal(again.status, 0, again.stderr);
    assert.ok((JSON.parse(again.stdout) as typeof report).markets.every((m) => !m.created));
    assert.equal(chain.markets().length, 1);

    const changed = await venue([
      'chain',
      'setup',
      '--config',
      configWith({ markets: [{ ...market, tick_size: 2000 }] }),
    ]);
    assert.equal(changed.status, 1);
    assert.match(
      changed.stderr,
      /markets\[0\]\.tick_size: the chain's market account .* says 1000, the config 2000/,
    );
    const decimals = await venue(['chain', 'setup', '--config', configWith({}), '--mint', 'USDC=9']);
    assert.equal(decimals.status, 1);
    assert.match(
      decimals.stderr,
      /quote_mint .*: the chain describes it as USDC with 6 decimals, not USDC with 9/,
    );
  });

  test('govern names a venue in the final governance with the authority key, and refuses any other key', async () => {
    // The chain of this file has no authority: a chain for govern is made with one.
    const authorityFile = join(dir, 'authority.json');
    const { createSigningKeyFile } = await import('../src/commands/signing-key-file.ts');
    const authority = await createSigningKeyFile(authorityFile, 'chain-authority');
    const governed = await createChainSimulator({
      clock: 'manual',
      matchProofs: 'stand-in',
      finalityDepth: 2,
      governance: { authority: authority.publicKey },
    });
    const server = await startRpcServer(governed, { port: 0 });
    const ticking = setInterval(() => governed.advance(1), 20);
    try {
      const ready = join(dir, 'serve-ready.json');
      const values = { measurement: 'ab'.repeat(32), settlement_signer: 'cd'.repeat(32) };
      writeFileSync(ready, JSON.stringify({ ...values, settles: true }));
      const base = ['chain', 'govern', '--chain-rpc', server.url];

      const neither = await venue([...base, '--authority-file', authorityFile]);
      assert.equal(neither.status, 1);
      assert.match(neither.stderr, /either with --serve-ready FILE or with --measurement and --signer/);
      const badHex = await venue([
        ...base,
        '--authority-file',
        authorityFile,
        '--measurement',
        'AB',
        '--signer',
        'cd'.repeat(32),
      ]);
      assert.equal(badHex.status, 1);
      assert.match(badHex.stderr, /--measurement: expected 64 lowercase hex characters/);
      const otherKey = join(dir, 'other-authority.json');
      await createSigningKeyFile(otherKey, 'chain-authority');
      const refused = await venue([...base, '--authority-file', otherKey, '--serve-ready', ready]);
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, new RegExp(`the chain's governance authority is ${authority.publicKey}`));
      assert.equal(governed.governance().pending.length, 0, 'nothing was proposed');

      const done = await venue([
        '--json',
        ...base,
        '--authority-file',
        authorityFile,
        '--serve-ready',
        ready,
      ]);
      assert.equal(done.status, 0, done.stderr);
      assert.deepEqual(JSON.parse(done.stdout), {
        sequence: '1',
        ...values,
        action: 'proposed',
        final: true,
      });
      assert.deepEqual(governed.governanceValues(), values, 'final and in force');
      const twice = await venue([
        '--json',
        ...base,
        '--authority-file',
        authorityFile,
        '--serve-ready',
        ready,
      ]);
      assert.equal((JSON.parse(twice.stdout) as { action: string }).action, 'already_in_force');
    } finally {
      clearInterval(ticking);
      await server.close();
    }
  });
});

describe('venue chain start', () => {
  test('refuses a bad option or a key of the wrong role before it starts a chain', async () => {
    const slow = await venue(['chain', 'start', '--slot-ms', '5']);
    assert.equal(slow.status, 2);
    assert.match(slow.stderr, /--slot-ms.*expected a whole number from 10 to 10000/);
    const deep = await venue(['chain', 'start', '--finality-depth', '0']);
    assert.equal(deep.status, 2);
    assert.match(deep.stderr, /--finality-depth.*from 1 to 150/);
    const proofs = await venue(['chain', 'start', '--match-proofs', 'none']);
    assert.equal(proofs.status, 2);
    assert.match(proofs.stderr, /--match-proofs.*Allowed choices are groth16, stand-in/);
    const publisherKey = join(dir, 'publisher-not-authority.json');
    await venue(['oracle', 'keygen', '--out', publisherKey]);
    const wrongRole = await venue(['chain', 'start', '--port', '0', '--authority-file', publisherKey]);
    assert.equal(wrongRole.status, 1);
    assert.match(
      wrongRole.stderr,
      /--authority-file .*holds the oracle-publisher key; this option takes the chain-authority key/,
    );
  });
});

describe('venue admin accounts create --save', () => {
  test('refuses a missing --label or a name the file already holds, before logging in', async () => {
    const file = join(dir, 'desks.json');
    const noLabel = await venue(['admin', 'accounts', 'create', '--save', file]);
    assert.equal(noLabel.status, 1);
    assert.match(noLabel.stderr, /--save needs --label/);
    writeFileSync(file, JSON.stringify({ 'desk-a': {} }), { mode: 0o600 });
    const taken = await venue(['admin', 'accounts', 'create', '--save', file, '--label', 'desk-a']);
    assert.equal(taken.status, 1);
    assert.match(taken.stderr, /already holds an account "desk-a"; choose another --label/);
  });
});
