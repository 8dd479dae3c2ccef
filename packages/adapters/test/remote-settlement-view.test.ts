// The remote settlement port's view of a batch it watches until final (D129): its record is read in
// full once per landing, then asked as held, so the chain leaves its leaves out; a landing in
// another slot (a reorg, then a new inclusion) is read in full again within the same refresh.
// The chain here is a script of replies, so each request can be checked; chain-sim's answer to
// held ids is tested over the wire in packages/chain-sim/test/rpc.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RemoteSettlementChain } from '@venue/adapters';
import {
  type ChainMethod,
  type ChainParams,
  generateTradingKey,
  type SettlementRecord,
  type SettlementView,
  type SettlementViewRequest,
} from '@venue/protocol';
import type { ChainRpcClient } from '../src/chain/chain-rpc-client.ts';

const TX = 'ab'.repeat(32);
const GOVERNANCE = {} as SettlementView['governance']; // passed through, never read here

function landed(slot: bigint, leafIndex: bigint | null): SettlementRecord {
  return {
    tx_id: TX,
    market_id: '11111111111111111111111111111111',
    batch_seq: 0n,
    match_count: 1,
    submitted_slot: 3n,
    state: 'landed',
    included_slot: slot,
    ...(leafIndex === null
      ? {}
      : { appended: [{ tree_id: 0, leaf_index: leafIndex, commitment: 'cd'.repeat(32) }] }),
  };
}

/** Answers each getSettlementView from `answer`, noting what was asked. */
function scriptedChain(answer: (request: SettlementViewRequest) => SettlementRecord | null) {
  const asked: SettlementViewRequest[] = [];
  const rpc = {
    url: 'scripted',
    async request<M extends ChainMethod>(method: M, params: ChainParams<M>): Promise<SettlementView> {
      assert.equal(method, 'getSettlementView');
      const request = params as SettlementViewRequest;
      asked.push(request);
      const ids = [...(request.tx_ids ?? []), ...(request.held_tx_ids ?? [])];
      return {
        slot: 10n,
        confirmed_slot: 9n,
        finalized_slot: 5n,
        governance: GOVERNANCE,
        roots: [],
        notes: [],
        settlements: ids.map((id) => ({ tx_id: id, record: answer(request) })),
        markets: [],
      };
    },
  } as unknown as ChainRpcClient;
  return { rpc, asked };
}

async function read(chain: RemoteSettlementChain): Promise<SettlementRecord | undefined> {
  chain.sees({ txIds: [TX] });
  assert.equal(await chain.refresh(), true);
  return chain.settlement(TX);
}

test("a landed batch's leaves are read once, then kept while it stays landed in the same slot", async () => {
  const { rpc, asked } = scriptedChain((request) =>
    // The chain leaves the leaves out of a held record, as chain-sim does.
    landed(7n, (request.held_tx_ids ?? []).length > 0 ? null : 41n),
  );
  const chain = new RemoteSettlementChain(rpc, generateTradingKey());
  assert.equal((await read(chain))?.appended?.[0]?.leaf_index, 41n);
  for (let i = 0; i < 3; i += 1) {
    const record = await read(chain);
    assert.equal(record?.appended?.[0]?.leaf_index, 41n, 'the leaves read first are still there');
  }
  assert.deepEqual(
    asked.map((request) => [request.tx_ids, request.held_tx_ids]),
    [[[TX], []], ...Array.from({ length: 3 }, () => [[], [TX]])],
  );
});

test('a batch that lands again in another slot is read in full again, in the same refresh', async () => {
  let landing = 7n;
  const { rpc, asked } = scriptedChain((request) => {
    const held = (request.held_tx_ids ?? []).length > 0;
    return landed(landing, held ? null : landing * 10n);
  });
  const chain = new RemoteSettlementChain(rpc, generateTradingKey());
  assert.equal((await read(chain))?.appended?.[0]?.leaf_index, 70n);
  landing = 12n; // reorganised away, then included again at slot 12
  const record = await read(chain);
  assert.equal(record?.included_slot, 12n);
  assert.equal(record?.appended?.[0]?.leaf_index, 120n, 'the leaves of the new landing');
  assert.deepEqual(
    asked.map((request) => [request.tx_ids ?? [], request.held_tx_ids ?? []]),
    [
      [[TX], []],
      [[], [TX]],
      [[TX], []],
    ],
  );
});

test('a held batch that is no longer landed is asked in full at the next read', async () => {
  let state: 'landed' | 'gone' = 'landed';
  const { rpc, asked } = scriptedChain((request) =>
    state === 'gone' ? null : landed(7n, (request.held_tx_ids ?? []).length > 0 ? null : 41n),
  );
  const chain = new RemoteSettlementChain(rpc, generateTradingKey());
  await read(chain);
  state = 'gone';
  assert.equal(await read(chain), undefined);
  state = 'landed';
  assert.equal((await read(chain))?.appended?.[0]?.leaf_index, 41n);
  assert.deepEqual(
    asked.map((request) => [request.tx_ids ?? [], request.held_tx_ids ?? []]),
    [
      [[TX], []],
      [[], [TX]],
      [[TX], []],
    ],
  );
});
