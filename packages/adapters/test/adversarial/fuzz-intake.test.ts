/**
 * Fuzzing the venue's intake paths that the REST fuzz (rest-fuzz.test.ts) does not reach (issue 11
 * item 2): stream frames over a real WebSocket, query strings and admin path parameters behind valid
 * tokens, and journal records on disk. What users rely on:
 * - a frame, query or parameter of any shape gets a 4xx answer (an `error` frame with a catalogue
 *   code, or the envelope), the connection keeps working and `seq` stays gapless;
 * - recovery from damaged journal bytes (flipped, zeroed, cut or appended, never whole files
 *   deleted: see docs/security.md on lost files) ends in exactly one of two ways: a JournalRecoveryError
 *   that stops the boot, or a state equal to some acknowledged prefix of the history with the
 *   torn tail reported; it never crashes otherwise and never applies altered content.
 *
 * Bounded: fixed seed, a few hundred cases per property, seconds in all.
 * Replay: ADVERSARIAL_FUZZ_SEED=<n> node scripts/run-tests.mjs fuzz-intake.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  FileJournal,
  type JournalFiles,
  JournalRecoveryError,
  NODE_JOURNAL_FILES,
  plainRecord,
  recoverJournal,
} from '@venue/adapters';
import { type Command, VenueCore } from '@venue/core';
import { ERRORS, errorNameOf, PlaceOrderSchema, ROUTES, stringifyJson, toWire } from '@venue/protocol';
import {
  applied,
  type Frame,
  freshTestCore,
  openingCommands,
  randomCommands,
  type StreamClient,
  TEST_CORE_CONFIG,
  TestVenue,
  type Trader,
  withTempDir,
} from '@venue/testing';
import fc from 'fast-check';

const SEED = Number(process.env['ADVERSARIAL_FUZZ_SEED'] ?? 11_2027);
const params = (numRuns: number) => ({ seed: SEED, numRuns });

/** The catalogue status of an error code, failing the test for a code outside the catalogue. */
function statusOf(code: unknown, where: string): number {
  assert.equal(typeof code, 'number', `no numeric code: ${where}`);
  const name = errorNameOf(code as number);
  assert.ok(name !== undefined, `code ${String(code)} is not in the catalogue: ${where}`);
  return ERRORS[name].http;
}

// ---- Stream frames ----

/** Valid-looking JSON values for a frame field, and plenty that are not. */
const fieldValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom('orders', 'fills', 'tree', ['orders', 'orders'], [], '0'.repeat(32), 'ab'.repeat(32)),
  fc.bigInt({ min: -1n, max: 2n ** 65n }).map(String),
);

function frameArbitrary(validPlace: Record<string, unknown>): fc.Arbitrary<string> {
  const ops = ['subscribe', 'unsubscribe', 'order.place', 'order.cancel', 'order.modify', 'ping', 'nope', ''];
  const keys = ['op', 'request_id', 'channels', 'params', 'order_id', 'token', 'cancel_on_disconnect', 'x'];
  const structured = fc
    .record({
      op: fc.constantFrom(...ops),
      extra: fc.array(fc.tuple(fc.constantFrom(...keys.slice(1)), fieldValue), { maxLength: 4 }),
    })
    .map(({ op, extra }) => stringifyJson({ op, ...Object.fromEntries(extra) }));
  // A valid signed order with one field replaced: reaches the intake checks behind the decoder.
  const mutatedPlace = fc
    .tuple(fc.constantFrom(...Object.keys(validPlace)), fieldValue)
    .map(([field, value]) => stringifyJson({ op: 'order.place', params: { ...validPlace, [field]: value } }));
  const junk = fc.oneof(
    fc.string({ maxLength: 120 }),
    fc.constantFrom(
      '{',
      '[]',
      'null',
      '{"op":1}',
      '{"op":"ping","op":"ping"}',
      `${'['.repeat(40)}${']'.repeat(40)}`,
    ),
  );
  return fc.oneof(
    { weight: 4, arbitrary: structured },
    { weight: 4, arbitrary: mutatedPlace },
    { weight: 2, arbitrary: junk },
  );
}

describe('fuzz: stream frames and queries over the real servers', { concurrency: false }, () => {
  let venue: TestVenue;
  let alice: Trader;
  let client: StreamClient;

  before(async () => {
    venue = await TestVenue.start();
    alice = await venue.trader('alice');
    client = await venue.stream();
    const login = await client.login(alice.token);
    assert.notEqual(login['op'], 'error', JSON.stringify(login));
  });
  after(async () => {
    await client?.close();
    await venue?.stop();
  });

  test('any frame gets a success reply or a 4xx error frame; the socket stays open; seq is gapless', async () => {
    const validPlace = toWire(PlaceOrderSchema, venue.order({ id: 77, nonce: 1n }, alice.key)) as Record<
      string,
      unknown
    >;
    let probes = 0;
    await fc.assert(
      fc.asyncProperty(frameArbitrary(validPlace), async (text) => {
        venue.clock.advanceMs(50); // keeps the trading rate limit from answering instead of the rules
        const before = client.frames.length;
        client.send(text);
        // A ping behind the frame: the frames are answered in order, so its pong closes the window.
        const pong = await client.request({ op: 'ping' });
        assert.equal(pong['op'], 'pong', `the socket stopped answering after ${text.slice(0, 200)}`);
        const replies = client.frames.slice(before, client.frames.indexOf(pong));
        for (const reply of replies) {
          if (reply['op'] !== 'error') continue;
          const status = statusOf(reply['code'], text.slice(0, 200));
          assert.ok(status >= 400 && status < 500, `a ${status} for ${text.slice(0, 200)}`);
        }
        probes += 1;
      }),
      params(400),
    );
    const seqs = client.frames.filter((f: Frame) => typeof f['seq'] === 'number').map((f) => f['seq']);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
      'seq counts every frame from 1 without a gap',
    );
    assert.ok(probes >= 400);
    assert.deepEqual(client.violations, [], 'every frame the venue sent fits its schema');
  });

  test('queries of authenticated reads and admin path parameters: never a 500, bad input a 4xx', async () => {
    const queried = ROUTES.filter((r) => r.query !== undefined || r.path.includes(':api_key'));
    const queryText = fc
      .array(
        fc.tuple(
          fc.constantFrom(
            'note_commitment',
            'tree_id',
            'from',
            'limit',
            'cursor',
            'signature',
            'after',
            'x',
            '',
          ),
          fc.oneof(
            fc.string({ maxLength: 20 }),
            fc.constantFrom('0', '-1', '18446744073709551616', 'ab'.repeat(32), '%zz', '1e3'),
          ),
        ),
        { maxLength: 4 },
      )
      .map((pairs) =>
        pairs
          .map(([k, v]) => `${encodeURIComponent(k)}=${v.includes('%') ? v : encodeURIComponent(v)}`)
          .join('&'),
      );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...queried),
        queryText,
        fc.string({ maxLength: 30 }),
        async (route, query, key) => {
          const path = route.path.replace(':api_key', encodeURIComponent(key) || 'x');
          const exchange = await venue.call(`${path}${query === '' ? '' : `?${query}`}`, {
            method: route.method,
            token: route.auth === 'admin' ? venue.adminToken : alice.token,
          });
          const where = `${route.method} ${path}?${query} -> ${exchange.status} ${exchange.text.slice(0, 200)}`;
          assert.notEqual(exchange.status, 500, where);
          if (exchange.status >= 400) {
            const envelope = JSON.parse(exchange.text) as { code: number };
            assert.equal(statusOf(envelope.code, where), exchange.status, where);
          }
        },
      ),
      params(250),
    );
  });
});

// ---- Journal records ----

/** The journal's file operations over a map of in-memory files (the fuzz damages copies of real ones). */
function memoryFiles(initial: ReadonlyMap<string, Buffer>): JournalFiles {
  const files = new Map([...initial].map(([name, bytes]) => [name, Buffer.from(bytes)]));
  const name = (path: string) => path.split('/').pop() ?? path;
  return {
    ...NODE_JOURNAL_FILES,
    create: async () => assert.fail('recovery never creates files'),
    rename: async () => assert.fail('recovery never renames files'),
    remove: async (path) => {
      files.delete(name(path));
    },
    syncDirectory: async () => {},
    makeDirectory: async () => {},
    list: async () => [...files.keys()],
    read: async (path) => {
      const bytes = files.get(name(path));
      if (bytes === undefined) throw Object.assign(new Error(`ENOENT ${path}`), { code: 'ENOENT' });
      return bytes;
    },
    truncate: async (path, length) => {
      const bytes = files.get(name(path));
      assert.ok(bytes !== undefined && length <= bytes.length, 'truncation stays inside the file');
      files.set(name(path), bytes.subarray(0, length));
    },
  };
}

type Damage =
  | { kind: 'flip'; file: number; at: number; bits: number }
  | { kind: 'cut'; file: number; at: number }
  | { kind: 'zero'; file: number; at: number; length: number }
  | { kind: 'append'; file: number; bytes: Uint8Array };

const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({
    kind: fc.constant('flip' as const),
    file: fc.nat(),
    at: fc.nat(),
    bits: fc.integer({ min: 1, max: 255 }),
  }),
  fc.record({ kind: fc.constant('cut' as const), file: fc.nat(), at: fc.nat() }),
  fc.record({
    kind: fc.constant('zero' as const),
    file: fc.nat(),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 300 }),
  }),
  fc.record({
    kind: fc.constant('append' as const),
    file: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 200 }),
  }),
);

function damaged(original: ReadonlyMap<string, Buffer>, damages: readonly Damage[]): Map<string, Buffer> {
  const files = new Map([...original].map(([name, bytes]) => [name, Buffer.from(bytes)]));
  for (const d of damages) {
    const names = [...files.keys()].sort();
    if (names.length === 0) break;
    const name = names[d.file % names.length] as string;
    const bytes = files.get(name) as Buffer;
    if (d.kind === 'append') files.set(name, Buffer.concat([bytes, d.bytes]));
    else if (bytes.length > 0) {
      const at = d.at % bytes.length;
      if (d.kind === 'flip') bytes[at] = (bytes[at] ?? 0) ^ d.bits;
      if (d.kind === 'cut') files.set(name, Buffer.from(bytes.subarray(0, at)));
      if (d.kind === 'zero') bytes.fill(0, at, Math.min(bytes.length, at + d.length));
    }
  }
  return files;
}

describe('fuzz: journal records on disk', () => {
  test('damaged journal bytes give a JournalRecoveryError or an acknowledged prefix; nothing else', async () => {
    const key = randomBytes(32);
    await withTempDir(async (dir) => {
      // Two boots (two segments), a snapshot in the middle, commit batches of several sizes.
      const core = freshTestCore();
      const history: Command[] = [];
      const prefixHashes = new Set<string>([core.stateHash()]);
      let journal = await FileJournal.open({
        directory: dir,
        sealingKey: key,
        recovery: await recoverJournal({ directory: dir, sealingKey: key, onCommand: () => {} }),
        snapshotIntervalRecords: 40,
      });
      const write = async (commands: Iterable<Command>) => {
        let batch: Promise<unknown>[] = [];
        for (const command of commands) {
          if (!applied(core, command)) continue;
          history.push(command);
          prefixHashes.add(core.stateHash());
          batch.push(journal.append(plainRecord(command)));
          if (journal.snapshotDue(0)) batch.push(journal.writeSnapshot(core.snapshot(), 0));
          if (batch.length >= 1 + (history.length % 5)) {
            await Promise.all(batch);
            batch = [];
          }
        }
        await Promise.all(batch);
      };
      await write(openingCommands());
      await write(randomCommands(core, 5, 60));
      await journal.close();
      journal = await FileJournal.open({
        directory: dir,
        sealingKey: key,
        recovery: await recoverJournal({ directory: dir, sealingKey: key, onCommand: () => {} }),
        snapshotIntervalRecords: 40,
      });
      await write(randomCommands(core, 6, 40));
      await journal.close();
      const fullHash = core.stateHash();

      const original = new Map<string, Buffer>();
      for (const name of await readdir(dir)) original.set(name, await readFile(join(dir, name)));
      assert.ok([...original.keys()].filter((n) => n.endsWith('.seg')).length >= 2, 'two segments');
      assert.ok(
        [...original.keys()].some((n) => n.endsWith('.snap')),
        'a snapshot',
      );

      const outcomes = { refused: 0, truncated: 0, whole: 0 };
      await fc.assert(
        fc.asyncProperty(fc.array(damage, { minLength: 1, maxLength: 3 }), async (damages) => {
          const commands: Command[] = [];
          let recovery: Awaited<ReturnType<typeof recoverJournal>>;
          try {
            recovery = await recoverJournal({
              directory: dir,
              sealingKey: key,
              files: memoryFiles(damaged(original, damages)),
              onCommand: (command) => commands.push(command),
            });
          } catch (error) {
            assert.ok(error instanceof JournalRecoveryError, `recovery threw ${String(error)}`);
            assert.match(error.message, /cannot|missing|no snapshot|gone|damaged/);
            outcomes.refused += 1;
            return;
          }
          const restored =
            recovery.snapshot === null
              ? freshTestCore()
              : VenueCore.restore(TEST_CORE_CONFIG, recovery.snapshot.text);
          for (const command of commands) restored.apply(command);
          const hash = restored.stateHash();
          assert.ok(prefixHashes.has(hash), 'the recovered state is one the venue really had');
          if (hash === fullHash) outcomes.whole += 1;
          else {
            assert.ok(recovery.truncated !== null, 'a shorter history is only ever a reported torn tail');
            outcomes.truncated += 1;
          }
        }),
        params(300),
      );
      assert.ok(
        outcomes.refused > 0 && outcomes.truncated > 0,
        `both endings seen: ${JSON.stringify(outcomes)}`,
      );
    });
  });
});
