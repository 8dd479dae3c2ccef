import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { assert } from '@venue/protocol';
import { CREDENTIAL_SCRYPT } from '../config/limits.ts';

/**
 * The stored form of an account's login secret: scrypt (memory-hard) over the api_secret and the
 * passphrase together, with a random salt. Both factors go into one derivation so that a login
 * costs one KDF run, not two. The separator 0x00 cannot occur in either value (their schemas allow
 * printable ASCII only), so no two different pairs give the same input.
 *
 * Encoded in the PHC string format, `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64 without padding),
 * so the parameters travel with each hash and can be raised later without breaking old accounts.
 */
export type CredentialHash = string & { readonly __brand: 'CredentialHash' };

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function secretInput(apiSecret: string, passphrase: string): Buffer {
  return Buffer.from(`${apiSecret}\u0000${passphrase}`, 'utf8');
}

function derive(input: Buffer, salt: Buffer, logN: number, r: number, p: number, keyBytes: number) {
  const N = 2 ** logN;
  return new Promise<Buffer>((resolve, reject) => {
    // maxmem: scrypt needs 128 * N * r bytes; allow exactly that plus slack for its bookkeeping.
    scrypt(input, salt, keyBytes, { N, r, p, maxmem: 128 * N * r * 2 }, (error, key) =>
      error === null ? resolve(key) : reject(error),
    );
  });
}

export async function hashCredential(apiSecret: string, passphrase: string): Promise<CredentialHash> {
  const { logN, r, p, keyBytes, saltBytes } = CREDENTIAL_SCRYPT;
  const salt = randomBytes(saltBytes);
  const key = await derive(secretInput(apiSecret, passphrase), salt, logN, r, p, keyBytes);
  const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');
  return `$scrypt$ln=${logN},r=${r},p=${p}$${b64(salt)}$${b64(key)}` as CredentialHash;
}

/** Constant-time comparison of a presented secret pair against a stored hash. */
export async function verifyCredential(
  stored: CredentialHash,
  apiSecret: string,
  passphrase: string,
): Promise<boolean> {
  const match = PHC.exec(stored);
  assert(match !== null, 'a stored credential hash is not in PHC scrypt form');
  const [, logN, r, p, salt, hash] = match;
  const expected = Buffer.from(hash ?? '', 'base64');
  const key = await derive(
    secretInput(apiSecret, passphrase),
    Buffer.from(salt ?? '', 'base64'),
    Number(logN),
    Number(r),
    Number(p),
    expected.length,
  );
  return timingSafeEqual(key, expected);
}
