/** The journal on NATS JetStream (issue 22): docs/durability.md, "The journal on JetStream". */
export * from './accounts-object.ts';
export * from './jetstream-journal.ts';
export * from './jetstream-lease.ts';
export * from './jetstream-link.ts';
export * from './jetstream-recovery.ts';
export * from './passing-errors.ts';
export * from './record-message.ts';
export * from './snapshot-objects.ts';
