// Worker side of the signature pool. Plain JavaScript on purpose: Node 20 does not carry the tsx
// loader into worker threads, so this file depends on node:crypto alone. The main thread has
// already applied the protocol's trading-key rule (isAcceptableTradingKey); this does the curve
// arithmetic only: Ed25519 verification of a 32-byte digest, with public keys cached.
import { createPublicKey, verify } from 'node:crypto';
import { parentPort } from 'node:worker_threads';

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const KEY_CACHE_ENTRIES_MAX = 4096;
const keys = new Map();

function keyObject(publicKeyHex) {
  let key = keys.get(publicKeyHex);
  if (key === undefined) {
    key = createPublicKey({
      key: Buffer.concat([SPKI_PREFIX, Buffer.from(publicKeyHex, 'hex')]),
      format: 'der',
      type: 'spki',
    });
    if (keys.size >= KEY_CACHE_ENTRIES_MAX) keys.delete(keys.keys().next().value);
    keys.set(publicKeyHex, key);
  }
  return key;
}

function check(job) {
  try {
    return verify(null, job.digest, keyObject(job.publicKey), Buffer.from(job.signature, 'hex'));
  } catch {
    return false; // OpenSSL refuses some point encodings outright: that is a failed check
  }
}

parentPort.on('message', (batch) => {
  parentPort.postMessage({ batchId: batch.batchId, results: batch.jobs.map(check) });
});
