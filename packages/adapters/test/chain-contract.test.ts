// The chain's wire contract (packages/protocol/src/chain) over the real JSON-RPC server: every
// request the venue's client and the SDK build from the contract decodes on the server, every
// reply the server writes decodes on both clients, the server answers exactly the contract's
// methods, and malformed params come back as the chain's bad_request naming the field.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ChainRpcClient } from '@venue/adapters';
import { type RpcServer, startRpcServer } from '@venue/chain-sim';
import { fieldToHex } from '@venue/notes';
import {
  CHAIN_METHOD_NAMES,
  CHAIN_METHODS,
  CHAIN_REJECTION_CODES,
  ChainError,
  type ChainMethod,
  type ChainParams,
  JsonNumberToken,
  signGovernance,
  signLockRequest,
  stringifyJson,
  U64_MAX,
  VenueError,
} from '@venue/protocol';
import { ChainRpcError, chainConsumed, chainDeposit, chainRpcCall, chainWithdraw } from '@venue/sdk';
import fc from 'fast-check';
import { RPC_METHODS } from '../../chain-sim/src/rpc-methods.ts';
import { BASE_MINT, type World, world } from '../../chain-sim/test/fixtures.ts';

let w: World;
let server: RpcServer;
let venue: ChainRpcClient;

before(async () => {
  w = await world();
  server = await startRpcServer(w.chain);
  venue = new ChainRpcClient(server.url);
});

after(() => server.close());

type Schema = Record<string, unknown>;
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const HEX = '0123456789abcdef';

/**
 * Values valid against a contract schema: the messages a client can build from the contract's
 * types. A schema construct this does not know fails the test, so a new kind of field is noticed.
 */
function arbitraryOf(schema: Schema): fc.Arbitrary<unknown> {
  if (Array.isArray(schema['anyOf'])) {
    const branch = (schema['anyOf'] as Schema[]).find((s) => s['type'] !== 'null') as Schema;
    return fc.option(arbitraryOf(branch), { nil: null });
  }
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as string[]));
  switch (schema['type']) {
    case 'object': {
      const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
      const required = (schema['required'] ?? []) as string[];
      const fields = Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, arbitraryOf(s)]));
      return fc.record(fields, { requiredKeys: required });
    }
    case 'array':
      return fc.array(arbitraryOf(schema['items'] as Schema), {
        minLength: (schema['minItems'] as number | undefined) ?? 0,
        maxLength: Math.min((schema['maxItems'] as number | undefined) ?? 3, 3),
      });
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = (schema['minimum'] as number | undefined) ?? 0;
      if (schema['format'] === 'uint64') return fc.bigInt({ min: BigInt(min), max: U64_MAX });
      // Small counts keep `advance` and `faultStallSlots` quick; the bounds are still exercised.
      return fc.integer({ min, max: Math.min((schema['maximum'] as number | undefined) ?? 64, 64) });
    }
    case 'string':
      return stringOf(schema);
    default:
      throw new Error(`no arbitrary for schema ${JSON.stringify(schema).slice(0, 80)}`);
  }
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const pattern = schema['pattern'] as string | undefined;
  const hex = /^\^\[0-9a-f\]\{(\d+)\}\$$/.exec(pattern ?? '');
  if (hex)
    return fc.string({ unit: fc.constantFrom(...HEX), minLength: Number(hex[1]), maxLength: Number(hex[1]) });
  if (pattern === '^(?:[0-9a-f]{2})*$')
    return fc
      .array(fc.integer({ min: 0, max: 255 }), { maxLength: 8 })
      .map((b) => Buffer.from(b).toString('hex'));
  if (pattern === '^[1-9A-HJ-NP-Za-km-z]{32,44}$' || pattern?.startsWith('^(?:[1-9A-HJ-NP-Za-km-z]{32,44}|'))
    return fc.string({ unit: fc.constantFrom(...BASE58), minLength: 32, maxLength: 44 });
  if (pattern === '^[\\x20-\\x7e]+$')
    return fc
      .string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 25 })
      .filter((s) => /^[\x20-\x7e]+$/.test(s));
  if (pattern === '^[A-Za-z0-9]+$')
    return fc
      .stringMatching(/^[A-Za-z0-9]+$/)
      .filter(
        (s) => s.length >= Number(schema['minLength'] ?? 0) && s.length <= Number(schema['maxLength'] ?? 40),
      );
  if (pattern === undefined) return fc.string({ maxLength: 40 });
  throw new Error(`no arbitrary for the string pattern ${pattern}`);
}

const paramsOf = <M extends ChainMethod>(method: M) =>
  arbitraryOf(CHAIN_METHODS[method].params as unknown as Schema) as fc.Arbitrary<ChainParams<M>>;

/** A failure that says the server could not read the request, or a client could not read the reply. */
function isContractBreach(error: unknown): boolean {
  if (error instanceof ChainError) return error.reason === 'bad_request' && error.message.includes('field `');
  if (error instanceof ChainRpcError)
    return (
      error.reason === 'transport' || (error.reason === 'bad_request' && error.message.includes('field `'))
    );
  return !(error instanceof VenueError);
}

test('the server answers exactly the methods the contract declares', () => {
  assert.deepEqual(Object.keys(RPC_METHODS).sort(), [...CHAIN_METHOD_NAMES].sort());
});

test('every request both clients build from the contract decodes on the server, and every reply decodes on them', async () => {
  const method = fc.constantFrom(...CHAIN_METHOD_NAMES);
  // A chain of its own: the random calls include fault injections (a failed or delayed next
  // settlement, reverted locks, slots advanced), which must not reach the world the tests below use.
  const own = await world();
  const ownServer = await startRpcServer(own.chain);
  const ownClient = new ChainRpcClient(ownServer.url);
  try {
    await fc.assert(
      fc.asyncProperty(
        method.chain((m) => fc.tuple(fc.constant(m), paramsOf(m), fc.boolean())),
        async ([name, params, viaSdk]) => {
          try {
            if (viaSdk) await chainRpcCall(ownServer.url, name, params);
            else await ownClient.request(name, params);
          } catch (error) {
            assert.ok(
              !isContractBreach(error),
              `${name} ${stringifyJson(params)}: ${(error as Error).message}`,
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  } finally {
    await ownServer.close();
  }
});

test('every method answers a result that decodes, on the venue client and the SDK', async () => {
  const answered = new Set<ChainMethod>();
  // Reads are asked of both clients, which must decode the same value; writes of the venue's.
  const call = async <M extends ChainMethod>(name: M, params: ChainParams<M>) => {
    const result = await venue.request(name, params);
    if (/^(get|list|audit)/.test(name))
      assert.deepEqual(await chainRpcCall(server.url, name, params), result);
    answered.add(name);
    return result;
  };
  const alice = w.wallet(7);
  const bid = w.deposit(w.wallet(8), 'quote', 500n);
  const ask = w.deposit(w.wallet(9), 'base', 5n);
  const spare = [w.deposit(alice, 'base', 3n), w.deposit(alice, 'base', 4n)];
  const lockTags = [bid, ask].map((held) => ({
    note_use_tag: held.note.hex.noteUseTag,
    expiry_slot: w.chain.slot + 20n,
  }));
  await call(
    'lockNotes',
    signLockRequest({ market_id: w.market.market_id, locks: lockTags, signer: w.signer.publicKey }, w.signer),
  );
  await call('getLock', { note_use_tag: bid.note.hex.noteUseTag });
  const record = await call('submitSettlement', { batch: w.trade(bid, ask, 2n, 300n) });
  assert.equal(record.state, 'landed');
  await call('getSettlement', { tx_id: record.tx_id });
  await call('getSettlementStatus', { tx_id: record.tx_id });
  await call('getSettlementView', {
    tags: [bid.note.hex.noteUseTag, ask.note.hex.noteUseTag],
    tx_ids: [record.tx_id],
    market_ids: [w.market.market_id],
  });
  await call('getConsumed', { note_use_tag: bid.note.hex.noteUseTag });
  const receipt = await chainDeposit(server.url, {
    tree_id: 0,
    mint: BASE_MINT,
    value: 11n,
    owner_commitment: fieldToHex(alice.owner),
    blinding: fieldToHex(77n),
    spend_authority: alice.authority.publicKey,
  });
  await call('deposit', {
    tree_id: 1,
    mint: BASE_MINT,
    value: 12n,
    owner_commitment: fieldToHex(alice.owner),
    blinding: fieldToHex(78n),
    spend_authority: alice.authority.publicKey,
  });
  await call('merge', (await w.merging(alice, spare)).request);
  const withdrawn = w.deposit(alice, 'quote', 6n);
  await chainWithdraw(server.url, (await w.withdrawal(alice, withdrawn, { value: 4n })).request);
  assert.equal((await chainConsumed(server.url, withdrawn.note.hex.noteUseTag))?.by, 'withdraw');
  const another = w.deposit(alice, 'quote', 8n);
  await call('withdraw', (await w.withdrawal(alice, another)).request);
  await call('getInclusion', { tree_id: 0, commitment: receipt.commitment });
  await call('getLeaves', { tree_id: 0, from: 0n, limit: 5 });
  await call('getRoots', {});
  await call('getRootWindow', { tree_id: 0 });
  await call('getTreeUpdates', { trees: [{ tree_id: 0, anchors: [] }], page_leaves: 2 });
  await call('getSlot', {});
  assert.equal((await call('getChainInfo', {})).match_proofs, w.chain.info().match_proofs);
  await call('getStateHash', {});
  await call('listMarkets', {});
  await call('getMarket', { market_id: w.market.market_id });
  const oracle = await call('updateOracle', { address: w.market.oracle, price: 151n, confidence: 2n });
  await call('getOracle', { address: oracle.address });
  const { market_id: _id, next_batch_seq: _seq, ...terms } = w.market;
  await call('createMarket', { ...terms, symbol: 'SOL-USDT' });
  await call('createMint', { mint: w.market.base_mint, symbol: 'SOL', decimals: 9 });
  assert.deepEqual((await call('listMints', {})).mints, [
    { mint: w.market.base_mint, symbol: 'SOL', decimals: 9 },
  ]);
  const governance = await call('getGovernance', {});
  await call(
    'proposeGovernance',
    signGovernance(
      {
        sequence: governance.next_sequence,
        measurement: 'cd'.repeat(32),
        settlement_signer: w.signer.publicKey,
      },
      w.authority,
    ),
  );
  await call('audit', {});
  await call('faultDelayNextSettlement', { slots: 2n, market_id: w.market.market_id });
  await call('faultFailNextSettlement', { reason: 'chain_rejected' });
  const locked = w.deposit(alice, 'base', 9n);
  w.lock([locked], w.chain.slot + 5n);
  await call('faultRevertLock', { note_use_tag: locked.note.hex.noteUseTag });
  await call('faultExpireRoot', { tree_id: 0, root: w.chain.currentRoot(0).root });
  await call('faultStallSlots', { ticks: 1 });
  await call('faultResumeSlots', {});
  await call('advance', { count: 40 });
  await call('reorg', { depth: 1n });
  await call('rollbackTo', { slot: w.chain.slot });
  assert.deepEqual(
    [...CHAIN_METHOD_NAMES].filter((name) => !answered.has(name)),
    [],
  );
});

test('malformed params are the chain bad_request, naming the field and what it expects', async () => {
  const broken = fc
    .constantFrom(...CHAIN_METHOD_NAMES)
    .chain((name) =>
      fc.tuple(fc.constant(name), paramsOf(name), fc.constantFrom('unknown', 'type', 'number', 'missing')),
    );
  await fc.assert(
    fc.asyncProperty(broken, async ([name, params, kind]) => {
      const schema = CHAIN_METHODS[name].params as unknown as Schema;
      const properties = schema['properties'] as Record<string, Schema>;
      const fields = { ...(params as Record<string, unknown>) } as Record<string, unknown>;
      const present = Object.keys(fields);
      const integers = present.filter((key) => properties[key]?.['type'] === 'integer');
      const required = (schema['required'] ?? []) as string[];
      let field = 'surplus_field';
      if (kind === 'type' && present.length > 0) {
        field = present[0] as string;
        fields[field] = true;
      } else if (kind === 'number' && integers.length > 0) {
        field = integers[0] as string;
        fields[field] = new JsonNumberToken('1.0');
      } else if (kind === 'missing' && required.length > 0) {
        field = required[0] as string;
        delete fields[field];
      } else fields[field] = 1n;
      const reply = JSON.parse(
        await (
          await fetch(server.url, {
            method: 'POST',
            body: stringifyJson({ jsonrpc: '2.0', id: 1, method: name, params: fields }),
          })
        ).text(),
      ) as { error?: { code: number; message: string; data?: { reason?: string } } };
      assert.equal(reply.error?.code, CHAIN_REJECTION_CODES.bad_request, `${name}: ${stringifyJson(fields)}`);
      assert.equal(reply.error?.data?.reason, 'bad_request');
      assert.match(reply.error?.message ?? '', new RegExp(`^params: field \`${field}\`: \\S`));
    }),
    { numRuns: 200 },
  );
});
