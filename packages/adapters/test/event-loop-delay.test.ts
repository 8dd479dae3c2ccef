// The sequencer's event-loop delay as the metrics report it (telemetry/event-loop-delay.ts): the
// sampling interval is not counted as delay, a stall is reported at its length, and each take
// covers only the time since the previous one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventLoopDelay } from '../src/telemetry/event-loop-delay.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('an idle loop reads under the sampling interval: the interval itself is not delay', async () => {
  // Each firing comes at least 250 ms after the last; only how much later than due it came counts,
  // so an idle loop reads well under 250 ms, where counting the interval would read at least that.
  // (50 ms was too close: a loaded host delayed an idle loop by 61 ms once.)
  const delay = new EventLoopDelay(250);
  try {
    await pause(1300);
    const idle = delay.take();
    assert.ok(idle.maxSeconds < 0.25, `an idle loop read ${idle.maxSeconds} s at its longest`);
    assert.ok(idle.p99Seconds <= idle.maxSeconds);
  } finally {
    delay.close();
  }
});

test('a held thread reads as long as it was held, once', async () => {
  const delay = new EventLoopDelay(2);
  try {
    await pause(10);
    delay.take();
    const heldUntil = performance.now() + 120;
    while (performance.now() < heldUntil) {
      // the thread is held, as a long synchronous step would hold it
    }
    await pause(10); // the sampling timer fires late, once
    const held = delay.take();
    assert.ok(held.maxSeconds >= 0.11, `a 120 ms hold read ${held.maxSeconds} s`);
    assert.ok(held.p99Seconds <= held.maxSeconds);
    await pause(30);
    assert.ok(delay.take().maxSeconds < 0.11, 'the hold is not reported by the next take');
    assert.deepEqual(delay.take(), { maxSeconds: 0, p99Seconds: 0 }, 'no sample since: nothing late');
  } finally {
    delay.close();
  }
});
