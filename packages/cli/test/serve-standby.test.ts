// `venue serve` as a primary and a hot standby on a JetStream journal (issue 22), end to end with
// real processes and real config files: a three-node NATS cluster, a chain simulator and an oracle
// publisher; the primary journals to the cluster, the standby (journal.role standby) follows it.
// A trader places a signed order through the SDK, whose client knows both endpoints; the primary is
// SIGKILLed; the standby prints its ready line, and the same client, untouched by the test, is on
// the new boot with the order still resting.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { STUB_PROOF_HEX } from '@venue/notes';
import { generateTradingKey } from '@venue/protocol';
import {
  connectVenue,
  KeyFile,
  NoteWallet,
  nominalCost,
  spentMintOf,
  Trader,
  type TrustAnchors,
} from '@venue/sdk';
import { freePort, type NatsCluster, startNatsCluster } from '@venue/testing';
import { startOraclePublisher } from './oracle-publisher.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const FEED = 'DevSoLUsdcFeed11111111111111111111111111111';
const SLOT_MS = 100;

let dir: string;
let cluster: NatsCluster;
let chainUrl: string;
let oracle: Awaited<ReturnType<typeof startOraclePublisher>>;
const children = new Set<ChildProcess>();
/** The step under way and the instances' output, printed if the test ends before its end. */
let step = 'the cluster and the chain';
const started: { name: string; output: () => string }[] = [];

interface Started {
  readonly child: ChildProcess;
  /** Resolves with the first line (stdout or stderr) that `match` accepts. */
  line(match: (line: string) => boolean): Promise<string>;
  output(): string;
}

function start(args: string[], name = args[0] ?? 'process'): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const seen: string[] = [];
  const waiting = new Set<{ match: (line: string) => boolean; resolve: (line: string) => void }>();
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream as NodeJS.ReadableStream }).on('line', (line) => {
      seen.push(line);
      for (const waiter of waiting) {
        if (!waiter.match(line)) continue;
        waiting.delete(waiter);
        waiter.resolve(line);
      }
    });
  }
  started.push({ name, output: () => seen.slice(-12).join('\n') });
  return {
    child,
    output: () => seen.join('\n'),
    line(match) {
      const earlier = seen.find(match);
      if (earlier !== undefined) return Promise.resolve(earlier);
      return new Promise((resolve, reject) => {
        waiting.add({ match, resolve });
        child.once('exit', (code, signal) =>
          reject(new Error(`${args.join(' ')} exited ${code ?? signal}:\n${seen.join('\n')}`)),
        );
      });
    },
  };
}

function readyOf(line: string): Record<string, unknown> {
  return (JSON.parse(line) as { ready: Record<string, unknown> }).ready;
}

const isReady = (line: string) =>
  line.startsWith('{') && (JSON.parse(line) as Record<string, unknown>)['ready'] !== undefined;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'venue-serve-standby-'));
  cluster = await startNatsCluster();
  const chain = start(
    [
      'packages/chain-sim/src/main.ts',
      '--port',
      '0',
      '--slot-ms',
      String(SLOT_MS),
      '--finality-depth',
      '4',
      '--authority',
      generateTradingKey().publicKey,
    ],
    'chain',
  );
  chainUrl = (await chain.line((line) => line.startsWith('READY '))).slice('READY '.length).trim();
  oracle = await startOraclePublisher(chainUrl, { feed: FEED, symbol: 'SOL-USDC', startPrice: 150_000n });
});

after(async () => {
  if (step !== 'done') {
    const tails = started.map(({ name, output }) => `# --- ${name}, last lines:\n${output()}`);
    process.stdout.write(`# serve-standby stopped at: ${step}\n${tails.join('\n')}\n`);
  }
  for (const child of children) child.kill('SIGKILL');
  oracle?.server.close();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** One instance's config file: its own state, port and files; the shared platform secret and stream. */
function writeConfig(name: string, port: number, role: 'primary' | 'standby'): string {
  const example = JSON.parse(readFileSync(join(ROOT, 'config/venue.example.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const home = join(dir, name);
  mkdirSync(home, { recursive: true });
  const file = join(home, 'venue.json');
  const config = {
    ...example,
    listen: { host: '127.0.0.1', port },
    state_dir: 'state',
    public_dir: 'public',
    // One platform, as two machines of one deployment share it: the sealing key (and so the
    // journal's records) is the same for both.
    platform: { kind: 'simulated', secret_file: join(dir, 'platform.json') },
    admin_credentials_file: 'secrets/admin.json',
    proofs: 'stub',
    chain: { rpc_url: chainUrl, poll_ms: 50, slot_ms: SLOT_MS, tree_count: 4, settle: false },
    oracle: {
      poll_ms: 100,
      feeds: [{ feed: FEED, publisher_key: oracle.publisherKey, url: oracle.url }],
    },
    journal: {
      kind: 'jetstream',
      servers: cluster.servers,
      stream: 'serve_standby',
      replicas: 3,
      role,
      lease: { ttl_ms: 2000, renew_ms: 500 },
    },
    log_level: 'info',
  };
  writeFileSync(file, JSON.stringify(config));
  return file;
}

function trustOf(file: string): TrustAnchors {
  const root = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  return {
    roots: new Map([[root['root_key_id'] ?? '', root['root_public_key'] ?? '']]),
    measurements: new Set([root['measurement'] ?? '']),
  };
}

// Below run-tests.mjs's 600 s file ceiling: a hang is reported by test name, and `after` kills.
describe('venue serve with a hot standby on JetStream', { timeout: 480_000 }, () => {
  test('the standby takes over after a SIGKILL of the primary; the SDK resumes and the order is there', async () => {
    const ports = [await freePort(), await freePort()];
    step = 'the primary boots';
    const primary = start(
      ['packages/cli/src/main.ts', 'serve', '--config', writeConfig('a', ports[0] as number, 'primary')],
      'primary',
    );
    const first = readyOf(await primary.line(isReady));
    step = 'the standby follows the stream';
    // The standby, as on another machine: its own state directory and port, the same platform.
    const standby = start(
      ['packages/cli/src/main.ts', 'serve', '--config', writeConfig('b', ports[1] as number, 'standby')],
      'standby',
    );
    await standby.line((line) => line.includes('standby: following stream serve_standby'));
    step = 'an account, the market opening and an order';

    const trust = trustOf(join(dir, 'a/public/platform-root.json'));
    const urls = ports.map((port) => `https://127.0.0.1:${port}`);
    const admin = (
      JSON.parse(readFileSync(join(dir, 'a/secrets/admin.json'), 'utf8')) as { admin: Record<string, string> }
    ).admin;
    const operator = await connectVenue({ url: urls[0] as string, trust });
    await operator.login({
      apiKey: admin['api_key'] ?? '',
      apiSecret: admin['api_secret'] ?? '',
      passphrase: admin['passphrase'] ?? '',
    });
    const account = await operator.createAccount({ role: 'trader', label: 'standby test' });
    await operator.close();

    const client = await connectVenue({ url: urls[0] as string, failoverUrls: urls.slice(1), trust });
    await client.login({
      apiKey: account.api_key,
      apiSecret: account.api_secret,
      passphrase: account.passphrase,
    });
    let failovers = 0;
    client.onFailover(() => (failovers += 1));
    for (let i = 0; !(await client.instrument('SOL-USDC')).trading_enabled; i += 1) {
      assert.ok(i < 400, 'SOL-USDC opens for trading once the oracle has spoken');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const keys = await KeyFile.create(join(dir, 'wallet', 'key.json'));
    const bot = Trader.open(client, keys, join(dir, 'wallet'));
    const instrument = await client.instrument('SOL-USDC');
    const request = { symbol: 'SOL-USDC', side: 'bid' as const, amount: 1_000_000n, price: 150_000n };
    const scratch = await NoteWallet.open(keys, null);
    const { note } = scratch.prepareDeposit({
      mint: spentMintOf('bid', instrument),
      value: nominalCost(request, instrument),
    });
    const root = (await client.treeRoots())[0]?.root;
    assert.ok(root !== undefined);
    // A stub venue (proofs: stub, no settlement) takes the notes package's stub proof.
    const placed = await bot.place({
      ...request,
      input: { ...scratch.stubInput(note, root), valid_input_proof: STUB_PROOF_HEX },
    });
    assert.equal(placed.state, 'resting');

    step = 'the takeover after SIGKILL';
    primary.child.kill('SIGKILL');
    const second = readyOf(await standby.line(isReady));
    step = 'the client on the new boot';
    assert.notEqual(second['session_id'], first['session_id'], 'the standby started a new boot');
    assert.equal(second['rest_url'], urls[1]);
    assert.ok(Number(second['replayed_commands']) >= 0);

    // The client was not told anything: its next call finds the new boot, attests it and logs in again.
    const record = await client.order(placed.order_id);
    assert.equal(record.state, 'resting');
    assert.equal(record.amount, request.amount);
    assert.equal(client.sessionId, second['session_id']);
    assert.equal(failovers, 1, 'the client followed one takeover');
    await bot.close();
    await client.close();
    scratch.close();
    step = 'the new primary stops on SIGTERM';
    standby.child.kill('SIGTERM');
    await new Promise((resolve) => standby.child.once('exit', resolve));
    step = 'done';
  });
});
