/**
 * @venue/protocol: the wire contract of interface 4.1.0, shared by the venue and its clients.
 * It depends on no server code; the venue and the SDK both depend on it.
 */
export * from './assert.ts';
export * from './canonical/attestation.ts';
export * from './canonical/bodies.ts';
export * from './canonical/layout.ts';
export * from './canonical/oracle.ts';
export * from './canonical/signing.ts';
export * from './chain/index.ts';
export * from './crypto/ed25519.ts';
export * from './crypto/intel-sgx-root.ts';
export * from './crypto/x25519.ts';
export * from './documents/api-documents.ts';
export * from './errors/catalogue.ts';
export * from './errors/venue-error.ts';
export * from './intake.ts';
export * from './json/json-text.ts';
export * from './limits.ts';
export * from './schema/account.ts';
export * from './schema/admin.ts';
export * from './schema/attestation.ts';
export * from './schema/auth.ts';
export * from './schema/clearing.ts';
export * from './schema/dead-man.ts';
export * from './schema/decode.ts';
export * from './schema/encode.ts';
export * from './schema/events.ts';
export * from './schema/market.ts';
export * from './schema/orders.ts';
export * from './schema/primitives.ts';
export * from './schema/public.ts';
export * from './schema/routes.ts';
export * from './schema/server-messages.ts';
export * from './schema/stream.ts';
export * from './schema/tree.ts';
