// Issue 23: one log format. Every line the venue writes is a JSON object with the same common
// fields (level name, ISO time, pid, hostname, msg); a line about a request carries its request id
// (REST: the x-request-id the response carried; stream: the frame's request_id); a fault line holds
// no order content; keys that name secrets are redacted whatever a caller passes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createVenueLogger, LOG_LEVELS } from '@venue/adapters';
import { PlaceOrderSchema, toWire, wireJsonText } from '@venue/protocol';
import { NON_SETTLING_TEST_PROOFS, TestVenue, type Trader } from '@venue/testing';
import { type CapturedLog, captureLogs } from './adversarial/venue-logs.ts';

/** Orders (by test order number) whose proof check crashes: the fault path logs, without the order. */
const FAULTY_IDS = [9001, 9002];
const AMOUNT = 4_242_421n;
const faulty = new Set<string>();

let venue: TestVenue;
let trader: Trader;
let log: CapturedLog;

before(async () => {
  venue = await TestVenue.start({
    proofs: {
      async check(order) {
        if (faulty.has(order.order_id)) throw new Error('verifier crashed');
        await NON_SETTLING_TEST_PROOFS.check(order);
      },
    },
  });
  log = captureLogs(venue);
  trader = await venue.trader('logged');
});
after(() => venue.stop());

function lines(): Record<string, unknown>[] {
  return log.lines.map((line) => {
    assert.ok(line.endsWith('\n'), 'one object per line');
    return JSON.parse(line) as Record<string, unknown>;
  });
}

/** The fields every line has, whoever wrote it. */
function assertCommonFields(line: Record<string, unknown>): void {
  const where = JSON.stringify(line);
  assert.ok((LOG_LEVELS as readonly unknown[]).includes(line['level']), `level by name: ${where}`);
  assert.equal(new Date(String(line['time'])).toISOString(), line['time'], `ISO time: ${where}`);
  assert.equal(line['pid'], process.pid, where);
  assert.equal(typeof line['hostname'], 'string', where);
  assert.equal(typeof line['msg'], 'string', where);
}

test('a REST fault is one JSON line with the common fields and the response request id', async () => {
  const order = venue.order({ id: FAULTY_IDS[0] ?? 0, amount: AMOUNT }, trader.key);
  faulty.add(order.order_id);
  const refused = await venue.call('/orders', {
    method: 'POST',
    token: trader.token,
    headers: { 'x-request-id': 'log-test-rest-1' },
    body: wireJsonText(PlaceOrderSchema, order),
  });
  assert.equal(refused.status, 500, refused.text);
  assert.equal(refused.headers['x-request-id'], 'log-test-rest-1');
  const faults = lines().filter(
    (line) => line['request_id'] === 'log-test-rest-1' && line['level'] === 'error',
  );
  assert.equal(faults.length, 1, log.lines.join(''));
  for (const line of lines()) assertCommonFields(line);
  const text = log.lines.join('');
  for (const marked of [order.order_id, String(AMOUNT), trader.token, order.trading_key_signature]) {
    assert.ok(!text.includes(marked), `the log carries ${marked}`);
  }
});

test("a stream fault is a line of the same shape, with the frame's request_id and the stream's component", async () => {
  const stream = await venue.stream();
  await stream.login(trader.token);
  const order = venue.order({ id: FAULTY_IDS[1] ?? 0, amount: AMOUNT }, trader.key);
  faulty.add(order.order_id);
  // The client numbers its frames' request_id; the reply echoes it.
  const reply = await stream.request({ op: 'order.place', params: toWire(PlaceOrderSchema, order) });
  assert.equal(reply['op'], 'error');
  const requestId = reply['request_id'];
  assert.equal(typeof requestId, 'string');
  await stream.close();
  const faults = lines().filter((line) => line['request_id'] === requestId);
  assert.equal(faults.length, 1, log.lines.join(''));
  assert.equal(faults[0]?.['component'], 'stream');
  assert.equal(faults[0]?.['level'], 'error');
  for (const line of lines()) assertCommonFields(line);
  assert.ok(!log.lines.join('').includes(order.order_id), 'the log carries the order id');
});

test('keys that name secrets are redacted by the logger itself', () => {
  const written: string[] = [];
  const logger = createVenueLogger({ level: 'info', stream: { write: (line) => written.push(line) } });
  logger
    .child({ component: 'check' })
    .warn(
      { api_secret: 'sekrit-1', nested: { passphrase: 'sekrit-2', authorization: 'Bearer sekrit-3' } },
      'a careless line',
    );
  assert.equal(written.length, 1);
  const line = JSON.parse(written[0] ?? '') as Record<string, unknown>;
  assertCommonFields(line);
  assert.equal(line['component'], 'check');
  assert.equal(line['level'], 'warn');
  assert.doesNotMatch(written[0] ?? '', /sekrit/);
});
