/**
 * A journal record as a JetStream message: the body is the sealed record frame exactly as the file
 * journal writes it into a segment, and one header carries the salt its key derives from (the part
 * a segment file's header holds on disk). The salt is not secret; the sealing key never leaves the
 * venue, so the brokers store and replicate bytes they cannot open.
 */
import { headers, type MsgHdrs } from '@nats-io/transport-node';
import { SALT_BYTES } from '../sealing.ts';

export const SALT_HEADER = 'Venue-Journal-Salt';

export function recordHeaders(salt: Buffer): MsgHdrs {
  const h = headers();
  h.set(SALT_HEADER, salt.toString('base64url'));
  return h;
}

/** The salt a stored record names, or null when its header is missing or malformed. */
export function saltOf(h: MsgHdrs | undefined): Buffer | null {
  const value = h?.get(SALT_HEADER);
  if (value === undefined || value === '') return null;
  const salt = Buffer.from(value, 'base64url');
  return salt.length === SALT_BYTES ? salt : null;
}
