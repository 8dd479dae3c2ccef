/**
 * Runs the code a takeover's boot runs first, once, while a standby waits: a throwaway boot identity
 * (key pair and certificate) and an HTTPS app built on it, made ready and closed without listening.
 * The first time a process builds these it loads and compiles much of Fastify, pino and the TLS
 * context (about 0.1 s alone, several times that on a loaded machine); a second build takes a few
 * milliseconds. Nothing of the throwaway boot is kept: the takeover makes its own identity.
 */
import { createWallSlotClock } from '../chain/wall-slot-clock.ts';
import { createBootIdentity } from '../enclave/boot-identity.ts';
import { createHttpServer } from '../http/server.ts';

export async function warmUpFront(): Promise<void> {
  const identity = await createBootIdentity();
  const http = createHttpServer({
    identity,
    clock: createWallSlotClock(),
    parameters: { settlementEnabled: false, proofMode: 'stub', settlementBufferSlots: 0n, treeCount: 1 },
    // Silent: a throwaway app has nothing to say to the operator.
    log: { level: 'silent' },
  });
  await http.app.ready();
  await http.close();
}
