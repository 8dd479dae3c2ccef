// The SDK's limits (sdk/src/limits.ts): the relations between them hold as shipped, and an edit
// that breaks any one of them makes the check connectVenue runs throw, naming that relation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AssertionError } from '@venue/protocol';
import {
  brokenSdkLimitRelations,
  CANDIDATE_STEPS_MAX,
  checkSdkLimits,
  EXPIRY_SLACK_SLOTS,
  ORDER_LIFETIME_SLOTS_DEFAULT,
  OUTPUT_VALUES_MAX,
  RECONNECT_DELAY_MS_MAX,
  RECONNECT_DELAY_MS_MIN,
  TOKEN_REFRESH_MARGIN_MS_DEFAULT,
} from '../src/index.ts';

const SHIPPED = {
  RECONNECT_DELAY_MS_MIN,
  RECONNECT_DELAY_MS_MAX,
  TOKEN_REFRESH_MARGIN_MS_DEFAULT,
  EXPIRY_SLACK_SLOTS,
  ORDER_LIFETIME_SLOTS_DEFAULT,
  OUTPUT_VALUES_MAX,
  CANDIDATE_STEPS_MAX,
};

const BREAKING_EDITS: ReadonlyArray<[string, Partial<typeof SHIPPED>]> = [
  ['RECONNECT_DELAY_MS_MIN < RECONNECT_DELAY_MS_MAX', { RECONNECT_DELAY_MS_MIN: 10_000 }],
  [
    'TOKEN_REFRESH_MARGIN_MS_DEFAULT < TOKEN_LIFETIME_SECONDS_MAX',
    { TOKEN_REFRESH_MARGIN_MS_DEFAULT: 3_600_000 },
  ],
  ['EXPIRY_SLACK_SLOTS < ORDER_LIFETIME_SLOTS_DEFAULT', { ORDER_LIFETIME_SLOTS_DEFAULT: 4501n }],
  ['CANDIDATE_STEPS_MAX >= OUTPUT_VALUES_MAX', { CANDIDATE_STEPS_MAX: 4095 }],
];

test('the SDK limits as shipped satisfy every relation', () => {
  assert.deepEqual(brokenSdkLimitRelations(SHIPPED), []);
  checkSdkLimits();
});

test('breaking any one SDK relation makes the check throw, naming that relation alone', () => {
  for (const [relation, edit] of BREAKING_EDITS) {
    const limits = { ...SHIPPED, ...edit };
    const broken = brokenSdkLimitRelations(limits);
    assert.equal(broken.length, 1, `${relation}: ${broken.join('; ')}`);
    assert.ok(broken[0]?.startsWith(relation), `${relation} reported as ${broken[0]}`);
    assert.throws(
      () => checkSdkLimits(limits),
      (error) => error instanceof AssertionError && error.message.includes(relation),
    );
  }
});
