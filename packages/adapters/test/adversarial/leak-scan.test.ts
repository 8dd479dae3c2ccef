/**
 * The leak scan (issue 11 item 4). A scenario runs with marked values (a distinctive amount and
 * price, note commitments, owner and inner hashes, a viewing key, order ids, API secrets,
 * passphrases and tokens), then every place the venue writes is searched for them:
 * - every line of the server log (captured at the most verbose level, with a fault forced on one
 *   marked order so that the fault path writes too);
 * - every public and admin body: health, status, time, info, instruments, tree root, transparency,
 *   drain, settlement metrics, the Prometheus text, the account list, and the operator console's
 *   page and assets;
 * - everything another account receives: its REST answers and every stream frame, while it probes
 *   the owner's orders and note;
 * - every file under the venue's state directory (journal segments, snapshots, the accounts file),
 *   as text and as the binary encodings of the values.
 * Only the owner's channel may carry them, and a positive control shows that it does, so the scan
 * is looking for strings that really appear where they are allowed.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  CancelParamsSchema,
  ModifyRequestSchema,
  type PlaceOrder,
  PlaceOrderSchema,
  signPlaceOrder,
  toWire,
  wireJsonText,
} from '@venue/protocol';
import { hex32, NON_SETTLING_TEST_PROOFS, TestVenue, testMarket, withTempDir } from '@venue/testing';
import { captureLogs } from './venue-logs.ts';

const AMOUNT = 7_331_113n;
const PRICE = 9_797_970n;
const FAULTY_ORDER_ID_LABEL = 'leak-fault';

/** The forms a marked value can take in text, and in binary files. */
function formsOf(value: string | bigint): { text: string[]; bytes: Buffer[] } {
  if (typeof value === 'bigint') {
    const le = Buffer.alloc(8);
    le.writeBigUInt64LE(value);
    const be = Buffer.alloc(8);
    be.writeBigUInt64BE(value);
    return { text: [value.toString()], bytes: [Buffer.from(value.toString()), le, be] };
  }
  const forms = { text: [value], bytes: [Buffer.from(value)] };
  if (/^([0-9a-f]{2})+$/.test(value) && value.length >= 32) forms.bytes.push(Buffer.from(value, 'hex'));
  return forms;
}

async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if ((await stat(path)).isDirectory()) found.push(...(await filesUnder(path)));
    else found.push(path);
  }
  return found;
}

test('leak scan: marked values reach only their owner; logs, metrics, other accounts and files never carry them', async () => {
  await withTempDir(async (dir) => {
    const venue = await TestVenue.start({
      state: { directory: dir, sealingKey: randomBytes(32) },
      // A dependency failure on one marked order: the fault path must log without its content.
      proofs: {
        async check(order) {
          if (order.order_id === hex32(FAULTY_ORDER_ID_LABEL).slice(0, 32))
            throw new Error('verifier crashed');
          await NON_SETTLING_TEST_PROOFS.check(order);
        },
      },
    });
    const log = captureLogs(venue);
    const publicBodies: string[] = [];
    const otherChannel: string[] = [];
    const ownerChannel: string[] = [];
    /** Every marked value; filled once the scenario has made them. */
    const secrets: (string | bigint)[] = [];
    /** What eve sends herself while probing: the owner's order ids and one note commitment. */
    const probedByEve = new Set<string>();
    try {
      const owner = await venue.trader('owner');
      const counterparty = await venue.trader('counterparty');
      const eve = await venue.trader('eve');
      const market = testMarket('SOL-USDC');
      venue.server.engine.record({ type: 'oracle_price', marketId: market.marketId, price: PRICE });

      const viewing = hex32('leak-viewing-key');
      const mark = (order: PlaceOrder) => signPlaceOrder({ ...order, viewing_pubkey: viewing }, owner.key);
      const bid = mark(
        venue.order({ id: 71_001, nonce: 1n, amount: AMOUNT, price: PRICE, note: 'leak-bid' }, owner.key),
      );
      const resting = mark(
        venue.order(
          { id: 71_002, nonce: 2n, amount: AMOUNT, price: PRICE - 10n, note: 'leak-rest' },
          owner.key,
        ),
      );
      const faulty = signPlaceOrder(
        {
          ...venue.order({ id: 71_003, nonce: 3n, amount: AMOUNT, price: PRICE }, owner.key),
          order_id: hex32(FAULTY_ORDER_ID_LABEL).slice(0, 32),
          viewing_pubkey: viewing,
        },
        owner.key,
      );
      secrets.push(
        AMOUNT,
        PRICE,
        viewing,
        owner.token,
        owner.apiSecret,
        owner.passphrase,
        counterparty.apiSecret,
        counterparty.passphrase,
        venue.adminToken,
        owner.key.publicKey,
        ...[bid, resting, faulty].flatMap((o) => [
          o.order_id,
          o.note_commitment,
          o.owner_commitment,
          o.note_inner_hash,
          o.trading_key_signature,
        ]),
      );
      for (const probed of [bid.order_id, resting.order_id, resting.note_commitment]) probedByEve.add(probed);

      // The owner trades on both channels; eve watches and probes.
      const ownerStream = await venue.stream();
      await ownerStream.login(owner.token);
      await ownerStream.request({ op: 'subscribe', channels: ['orders', 'fills', 'tree'] });
      const eveStream = await venue.stream();
      await eveStream.login(eve.token);
      await eveStream.request({ op: 'subscribe', channels: ['orders', 'fills', 'tree'] });

      const ownerCall = async (path: string, options: Parameters<typeof venue.call>[1] = {}) => {
        const answer = await venue.call(path, { token: owner.token, ...options });
        ownerChannel.push(answer.text);
        return answer;
      };
      assert.equal(
        (await ownerCall('/orders', { method: 'POST', body: wireJsonText(PlaceOrderSchema, bid) })).status,
        200,
      );
      const viaStream = await ownerStream.request({
        op: 'order.place',
        params: toWire(PlaceOrderSchema, resting),
      });
      assert.equal(viaStream['op'], 'order.place', JSON.stringify(viaStream));
      const failed = await ownerCall('/orders', {
        method: 'POST',
        body: wireJsonText(PlaceOrderSchema, faulty),
      });
      assert.equal(failed.status, 500);
      // A counter order crosses the bid at the next batch: pending_settlement for both owners.
      const ask = venue.order(
        { id: 71_010, nonce: 1n, side: 'ask', amount: AMOUNT, price: PRICE, key: 'cp' },
        counterparty.key,
      );
      assert.equal((await venue.place(counterparty, ask)).status, 200);
      venue.clock.advanceSlots(2n);
      venue.server.engine.catchUp();
      const repriced = mark(
        venue.order(
          { id: 71_002, nonce: 4n, amount: AMOUNT, price: PRICE - 20n, note: 'leak-rest' },
          owner.key,
        ),
      );
      const modify = venue.modifyRequest(resting.order_id, 1n, repriced, owner.key);
      assert.equal(
        (
          await ownerCall(`/orders/${resting.order_id}`, {
            method: 'PUT',
            body: wireJsonText(ModifyRequestSchema, modify),
          })
        ).status,
        200,
      );
      await ownerCall(`/orders/${resting.order_id}`);
      await ownerCall('/account');

      // Eve knows the ids and the note commitment (say, from a leaked log elsewhere) and probes.
      const eveCall = async (path: string, options: Parameters<typeof venue.call>[1] = {}) => {
        const answer = await venue.call(path, { token: eve.token, ...options });
        otherChannel.push(answer.text);
        return answer;
      };
      for (const order of [bid, resting]) {
        await eveCall(`/orders/${order.order_id}`);
        await eveCall(`/orders/${order.order_id}`, {
          method: 'DELETE',
          body: wireJsonText(CancelParamsSchema, venue.cancelParams(order.order_id, 1n, eve.key)),
        });
      }
      await eveCall('/account');
      const reuse = signPlaceOrder(
        {
          ...venue.order({ id: 71_020, nonce: 1n }, eve.key),
          note_commitment: resting.note_commitment,
          owner_commitment: hex32('eve-owner'),
        },
        eve.key,
      );
      await eveCall('/orders', { method: 'POST', body: wireJsonText(PlaceOrderSchema, reuse) });
      await eveStream.request({
        op: 'order.cancel',
        order_id: bid.order_id,
        params: toWire(CancelParamsSchema, venue.cancelParams(bid.order_id, 2n, eve.key)),
      });

      // Public and admin bodies.
      for (const path of [
        '/health',
        '/system/status',
        '/time',
        '/info',
        '/instruments',
        '/instruments/SOL-USDC',
        '/tree/root',
        '/transparency',
      ]) {
        publicBodies.push((await venue.call(path)).text);
      }
      for (const path of [
        '/admin/drain',
        '/admin/metrics/settlement',
        '/admin/metrics/prometheus',
        '/admin/accounts',
      ]) {
        publicBodies.push((await venue.call(path, { token: venue.adminToken })).text);
      }
      // The operator console: its page and every file the page loads (docs/operations.md).
      const page = await venue.call('/console/');
      assert.equal(page.status, 200, 'the console is built and served');
      publicBodies.push(page.text);
      for (const [, asset] of page.text.matchAll(/(?:src|href)="(\/console\/[^"]+)"/g)) {
        publicBodies.push((await venue.call(asset ?? '')).text);
      }

      await ownerStream.request({ op: 'ping' });
      await eveStream.request({ op: 'ping' });
      const kinds = ownerStream.frames.filter((f) => f['channel'] === 'orders').map((f) => f['kind']);
      assert.ok(kinds.includes('pending_settlement'), `the bid matched: ${kinds.join(',')}`);
      ownerChannel.push(...ownerStream.frames.map((f) => JSON.stringify(f)));
      otherChannel.push(...eveStream.frames.map((f) => JSON.stringify(f)));
      await ownerStream.close();
      await eveStream.close();
    } finally {
      await venue.stop();
    }

    const files = await filesUnder(dir);
    assert.ok(files.length >= 2, `the venue wrote its journal and accounts: ${files.join(', ')}`);
    const secretsOf = (list: (string | bigint)[]) => list.map((v) => ({ value: v, ...formsOf(v) }));
    const scan = (where: string, texts: readonly string[], values: ReturnType<typeof secretsOf>) => {
      for (const text of texts) {
        for (const secret of values) {
          for (const form of secret.text)
            assert.ok(
              !text.includes(form),
              `${where} carries ${String(secret.value)}: ${text.slice(0, 300)}`,
            );
        }
      }
    };
    assert.ok(secrets.length > 20, 'the scenario ran to the end');
    const values = secretsOf(secrets);
    assert.ok(log.lines.length > 0, 'the fault was logged, so the log scan saw real lines');
    scan('the server log', log.lines, values);
    scan('a public or admin body', publicBodies, values);
    // Eve sent the probed order ids and note commitment herself; everything else stays hidden.
    scan(
      'a reply to another account',
      otherChannel,
      values.filter((s) => !probedByEve.has(String(s.value))),
    );
    for (const path of files) {
      const bytes = await readFile(path);
      for (const secret of values) {
        for (const form of secret.bytes)
          assert.ok(!bytes.includes(form), `${path} holds ${String(secret.value)} in clear`);
      }
    }
    // Positive control: the owner's own channel does carry the marked order fields.
    const owned = ownerChannel.join('\n');
    assert.ok(
      owned.includes(AMOUNT.toString()) && owned.includes(PRICE.toString()),
      'the owner sees its amount and price',
    );
  });
});
