import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWallSlotClock } from '../src/index.ts';

test('slots count from boot on the monotonic clock, one per slot duration', () => {
  let monotonic = 1_000.5;
  const clock = createWallSlotClock({ slotDurationMs: 400, monotonicMs: () => monotonic, wallMs: () => 5.9 });
  assert.equal(clock.slot(), 0n);
  monotonic += 399;
  assert.equal(clock.slot(), 0n);
  monotonic += 1;
  assert.equal(clock.slot(), 1n);
  monotonic += 400 * 99;
  assert.equal(clock.slot(), 100n);
  assert.equal(clock.nowMs(), 5);
  assert.equal(clock.slotDurationMs, 400);
});

test('a monotonic source that steps back never makes the slot go below boot', () => {
  let monotonic = 10_000;
  const clock = createWallSlotClock({ monotonicMs: () => monotonic });
  monotonic = 0;
  assert.equal(clock.slot(), 0n);
});

test('the finalized slot trails the current slot by the finality depth, floored at 0', () => {
  let monotonic = 0;
  const clock = createWallSlotClock({
    slotDurationMs: 10,
    finalityDepthSlots: 32n,
    monotonicMs: () => monotonic,
  });
  assert.equal(clock.finalizedSlot(), 0n);
  monotonic = 10 * 32;
  assert.equal(clock.finalizedSlot(), 0n);
  monotonic = 10 * 40;
  assert.equal(clock.slot(), 40n);
  assert.equal(clock.finalizedSlot(), 8n);
});

test('a slot duration that is not a positive integer is a programmer error', () => {
  assert.throws(() => createWallSlotClock({ slotDurationMs: 0 }), /slotDurationMs/);
  assert.throws(() => createWallSlotClock({ slotDurationMs: 0.5 }), /slotDurationMs/);
});
