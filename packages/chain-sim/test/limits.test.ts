// The chain simulator's limits (chain-sim/src/limits.ts): the relations between them hold as
// shipped, and an edit that breaks any one of them stops a chain from being built.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AssertionError } from '@venue/protocol';
import {
  brokenChainLimitRelations,
  CHAIN_LIMITS,
  type ChainLimits,
  checkChainLimitRelations,
} from '../src/index.ts';

/** One edit per relation, each breaking exactly that relation; the name is the limit it names first. */
const BREAKING_EDITS: ReadonlyArray<[string, Partial<ChainLimits>]> = [
  ['SHARDS_DEFAULT <= SHARDS_MAX', { SHARDS_DEFAULT: 257 }],
  ['ROOT_WINDOW_DEFAULT <= ROOT_WINDOW_MAX', { ROOT_WINDOW_MAX: 32 }],
  ['FINALITY_DEPTH_DEFAULT <= FINALITY_DEPTH_MAX', { FINALITY_DEPTH_MAX: 16 }],
  ['CONFIRMATION_DEPTH_DEFAULT <= FINALITY_DEPTH_DEFAULT', { CONFIRMATION_DEPTH_DEFAULT: 33 }],
  ['LOCKS_PER_REQUEST_MAX >= BATCH_LEGS_MAX', { LOCKS_PER_REQUEST_MAX: 512 }],
  ['LOCK_SLOTS_MAX >= ORDER_LIFETIME_SLOTS_MAX', { LOCK_SLOTS_MAX: 4499n }],
  ['MARKETS_MAX >= the protocol MARKETS_MAX', { MARKETS_MAX: 64 }],
  ['TREE_UPDATE_LEAVES_MAX >= LEAVES_PAGE_MAX', { TREE_UPDATE_LEAVES_MAX: 999 }],
];

test('the chain limits as shipped satisfy every relation', () => {
  assert.deepEqual(brokenChainLimitRelations(CHAIN_LIMITS), []);
  checkChainLimitRelations();
});

test('breaking any one chain relation makes the check throw, naming that relation alone', () => {
  for (const [relation, edit] of BREAKING_EDITS) {
    const limits = { ...CHAIN_LIMITS, ...edit };
    const broken = brokenChainLimitRelations(limits);
    assert.equal(broken.length, 1, `${relation}: ${broken.join('; ')}`);
    assert.ok(broken[0]?.startsWith(relation), `${relation} reported as ${broken[0]}`);
    assert.throws(
      () => checkChainLimitRelations(limits),
      (error) => error instanceof AssertionError && error.message.includes(relation),
    );
  }
});
