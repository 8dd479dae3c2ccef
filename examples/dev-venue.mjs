// Shared by the examples: where the development venue is and how a trader opens its session there.
// Copy it beside your bot; every call in it is the public API of @venue/sdk and @venue/notes.
//
// Settings come from the environment, with the defaults of `npm start` in a checkout of the venue:
//   VENUE_URL        https://127.0.0.1:8443
//   CHAIN_RPC        http://127.0.0.1:8899   (the dev chain simulator's JSON-RPC, for deposits and the oracle)
//   VENUE_STATE_DIR  .state/dev              (dev-accounts.json and platform-root.json, from the banner)
//   TRADERS_DIR      .venue-examples         (one folder per trader: key file, sealed logs, nonces)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createValidInputProver } from '@venue/notes';
import { chainRpcCall, connectVenue, KeyFile, NoteWallet, openFillMemoWithKeyFile, Trader } from '@venue/sdk';

export const VENUE_URL = process.env.VENUE_URL ?? 'https://127.0.0.1:8443';
export const CHAIN_RPC = process.env.CHAIN_RPC ?? 'http://127.0.0.1:8899';
const STATE_DIR = process.env.VENUE_STATE_DIR ?? '.state/dev';
const TRADERS_DIR = process.env.TRADERS_DIR ?? '.venue-examples';

/** The trust anchors: the platform root and code measurement the dev venue publishes. */
export function devTrust() {
  const root = JSON.parse(readFileSync(join(STATE_DIR, 'platform-root.json'), 'utf8'));
  return {
    roots: new Map([[root.root_key_id, root.root_public_key]]),
    measurements: new Set([root.measurement]),
  };
}

/** One demo account of the dev venue (admin, alice, bob). */
export function devCredentials(name) {
  const account = JSON.parse(readFileSync(join(STATE_DIR, 'dev-accounts.json'), 'utf8'))[name];
  if (account === undefined) throw new Error(`dev-accounts.json has no account ${name}`);
  return { apiKey: account.api_key, apiSecret: account.api_secret, passphrase: account.passphrase };
}

/**
 * Attests the venue, logs in, and opens the trader's key file (made on first use), note wallet,
 * Trader and session stream. The Trader follows the stream: events and fill memos move the
 * wallet's notes, and a gap (a lost frame or a reconnect) reconciles the open orders.
 */
export async function openSession(name, { cancelOnDisconnect = true, prover } = {}) {
  const dir = join(TRADERS_DIR, name);
  const keyPath = join(dir, 'key.json');
  const keys = existsSync(keyPath) ? await KeyFile.load(keyPath) : await KeyFile.create(keyPath);
  const venue = await connectVenue({ url: VENUE_URL, trust: devTrust() }); // checks the attestation
  await venue.login(devCredentials(name));
  const wallet = await NoteWallet.open(keys, dir);
  const ownProver = prover === undefined;
  const usedProver = prover ?? (await createValidInputProver());
  const trader = Trader.open(venue, keys, dir, { wallet, prover: usedProver });
  await trader.recover(); // resends what a crash left unsent, reads orders that ended meanwhile
  const stream = await venue.openStream({ channels: ['orders', 'fills'], cancelOnDisconnect });
  trader.follow(stream);
  const instruments = new Map((await venue.instruments()).map((i) => [i.symbol, i]));
  const close = async () => {
    await stream.close();
    trader.close();
    wallet.close();
    await venue.close();
    if (ownProver) await usedProver.close();
  };
  return { name, keys, venue, wallet, trader, stream, instruments, close };
}

/**
 * The reference price the auction bands around: the chain's oracle account that the instrument
 * names (`oracle_feed`), read over the chain's JSON-RPC. The venue itself publishes no price.
 */
export async function referencePrice(instrument) {
  const oracle = await chainRpcCall(CHAIN_RPC, 'getOracle', { address: instrument.oracle_feed });
  return oracle.price;
}

/** A price moved by `bps` basis points and rounded down to the market's tick (off-tick is refused). */
export function priceNear(reference, bps, instrument) {
  const moved = (reference * BigInt(10_000 + bps)) / 10_000n;
  return (moved / instrument.tick_size) * instrument.tick_size;
}

/**
 * Deposits notes on the chain, `[mint, value]` each, and waits until the wallet sees them as
 * spendable: the venue accepts a new tree root one slot after a deposit lands, then a scan finds
 * the leaves. Returns the notes.
 */
export async function fund(session, ...deposits) {
  const notes = [];
  let lastSlot = 0n;
  for (const [mint, value] of deposits) {
    const { note, receipt } = await session.wallet.depositVia(CHAIN_RPC, { mint, value });
    notes.push(note);
    if (receipt.slot > lastSlot) lastSlot = receipt.slot;
  }
  while ((await session.venue.time()).slot <= lastSlot) await sleep(200);
  await session.wallet.scan(session.venue);
  return notes;
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves with the first fill memo for `orderId` (the stream's fills channel), opened with the viewing key. */
export function nextFill(session, orderId) {
  return new Promise((resolve) => {
    const onFill = (message) => {
      if (message.order_id !== orderId) return;
      session.stream.off('fill', onFill);
      resolve(openFillMemoWithKeyFile(message, session.keys));
    };
    session.stream.on('fill', onFill);
  });
}
